"""Reinforcement-learning baselines (importable as ``mmenvs.baselines.rl``; needs the ``rl`` extra).

``train`` (the ``mmenvs train`` command, ``train.py``) trains stable-baselines3 / sb3-contrib policies
on the task families of ``families.py`` and evaluates them against the random policy on held-out
tasks. See docs/rl.md.
"""

from .families import FAMILIES, Family, get_family

__all__ = ["FAMILIES", "Family", "get_family"]
