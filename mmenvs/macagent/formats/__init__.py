"""File formats MacAgent's tasks, checkpoints and backends share, owned by no backend: the sim writes and
reads them, task setup generates input files in them, and getters read them back from any guest.

- :mod:`.audio`: linear-PCM WAVE/AIFF/AIFC, sample formats, resampling, test tones.
- :mod:`.iwork_container`: the zip container of Pages/Numbers/Keynote documents (``Index/Document.json``).
- :mod:`.numbers_formulas`: cell addresses, typed input and the formula language of Numbers tables.
- :mod:`.numbers_tables`: Numbers sheets and tables, a document's content, a table's values by address.
"""
