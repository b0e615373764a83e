"""MacAgent: MacAgentBench reimplemented as ``MacAgent-v0``.

* ``tasks`` — the task format (JSON data), its validation, variant expansion and setup steps;
* ``checkpoints`` — the getter library (shell, AppleScript, python) and the metrics;
* ``actions`` — the action grammar, the pyautogui shim and computer-use dicts;
* ``env`` — :class:`MacAgentEnv`, the Gymnasium env;
* ``backends`` — the desktops it drives (the embedded simulator, a real macOS VM).
"""

from .env import MacAgentEnv

__all__ = ["MacAgentEnv"]
