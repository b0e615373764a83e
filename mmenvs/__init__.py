"""mmenvs: Gymnasium environments for multimodal agents.

Importing the package registers every env id declared under ``registry/envs``::

    import gymnasium as gym
    import mmenvs  # noqa: F401
    env = gym.make("VTCBench-v0")
"""

from .core.registry import register_envs

__version__ = "0.1.0"
ENV_IDS = register_envs()

__all__ = ["ENV_IDS", "__version__"]
