"""Gymnasium wrappers for mmenvs environments (importable as ``mmenvs.wrappers``).

They turn the text-in/text-out envs into forms that standard RL libraries and LLM trainers use:

- actions: ``DiscreteActions`` maps ``Discrete(n)`` onto a fixed list of action strings; the action
  menus (``DebugEchoMenu``, ``VTCBenchMenu``, ``MacAgentMenu``, ``MMToolSandboxMenu``, or
  ``action_menu(env)``) give each env a fixed-size ``Discrete`` space built from its state, with an
  action mask (``info["action_mask"]``, ``action_masks()`` for sb3-contrib's MaskablePPO);
- observations: ``ImageObservation`` (alias ``ImageOnly``) keeps only the image (``CnnPolicy``),
  ``ImageText`` and ``MultiInputObservation`` give ``MultiInputPolicy`` dicts (hashed text, the
  instruction, the step count, the last action's result); ``MenuObservation`` adds each menu slot's
  content (hashed label);
- rewards: ``PotentialShaping`` (Ng et al.'s potential-based shaping, with ``info["reward_components"]``);
- LLMs: ``ChatMessages`` keeps the observation stream as OpenAI chat messages (data-URL images, tool
  results, an image window).

docs/rl.md ("Wrappers") shows them together.
"""

from .chat import ChatHistory, ChatMessages, ImageOptions, encode_image
from .discrete import DiscreteActions, ImageObservation
from .mac_menu import ACTIONABLE_ROLES, HOTKEYS, MacAgentMenu
from .menus import ActionMenu, DebugEchoMenu, MenuOption, VTCBenchMenu, VTC_PRESETS, action_menu
from .observations import HashedText, ImageText, MenuObservation, MultiInputObservation
from .shaping import PotentialShaping, score_potential, step_penalty_potential
from .toolsandbox_menu import MMToolSandboxMenu

ImageOnly = ImageObservation

__all__ = ["ACTIONABLE_ROLES", "ActionMenu", "HOTKEYS", "MacAgentMenu", "MMToolSandboxMenu", "ChatHistory", "ChatMessages", "DebugEchoMenu", "DiscreteActions", "HashedText", "ImageObservation",
           "ImageOnly", "ImageOptions", "ImageText", "MenuObservation", "MenuOption", "MultiInputObservation", "PotentialShaping", "VTCBenchMenu", "VTC_PRESETS",
           "action_menu", "encode_image", "score_potential", "step_penalty_potential"]
