"""Gymnasium wrappers for mmenvs environments (importable as ``mmenvs.wrappers``).

They turn the text-in/text-out envs into forms that standard RL libraries and LLM trainers use:
``DiscreteActions`` maps ``Discrete(n)`` onto a fixed menu of action strings, ``ImageObservation``
keeps only the fixed-size image (a ``Box`` SB3's CNN policies accept), and ``ChatMessages`` keeps
the observation stream as OpenAI chat messages (data-URL images, tool results, an image window).
"""

from .chat import ChatHistory, ChatMessages, ImageOptions, encode_image
from .discrete import DiscreteActions, ImageObservation

__all__ = ["ChatHistory", "ChatMessages", "DiscreteActions", "ImageObservation", "ImageOptions", "encode_image"]
