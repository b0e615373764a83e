"""File formats MacAgent's tasks, checkpoints and backends share, owned by no backend: the sim writes and
reads them, task setup generates input files in them, and getters read them back from any guest.

- :mod:`.audio`: linear-PCM WAVE/AIFF/AIFC, sample formats, resampling, test tones.
"""
