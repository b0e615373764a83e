"""UI mode of MMToolSandbox (paper §4.2, Fig. 3): declarative screens, their validation and rendering,
the UI tools and their documentation, and the scripted user's private decisions.

* ``schema.py``: the screen format and ``validate_screen`` (errors name the JSON path)
* ``render.py``: ``render_screen`` draws a validated screen with Pillow
* ``docs.py``: the documentation corpus of the ``ui_*`` doc tools
* ``tools.py``: the UI tools (``AGENT_TOOLS``, the user's ``USER_TOOL``) and the per-episode ``UIServer``
* ``decide.py``: a round's private decisions and how the scripted user reacts to a screen
"""
