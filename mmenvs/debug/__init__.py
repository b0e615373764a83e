"""DebugEcho-v0: a tiny real env that exercises the shared contract, the runner and the CLI."""

from .env import DebugEchoEnv

__all__ = ["DebugEchoEnv"]
