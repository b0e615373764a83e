"""Gymnasium wrappers for mmenvs environments (importable as ``mmenvs.wrappers``).

They turn the text-in/text-out envs into forms that standard RL libraries train on:
``DiscreteActions`` maps ``Discrete(n)`` onto a fixed menu of action strings, and
``ImageObservation`` keeps only the fixed-size image (a ``Box`` SB3's CNN policies accept).
"""

from .discrete import DiscreteActions, ImageObservation

__all__ = ["DiscreteActions", "ImageObservation"]
