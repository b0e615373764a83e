"""Checking a generated scenario the way the paper's Stage 6 does: the oracle must solve it.

The reference solution is replayed through a real ``MMToolSandboxEnv`` (tool mode, full toolset,
the env's own oracle) and must reach entity F1 = 1.0. One env per process is reused: building the
tool catalog and the sandbox-free tool-mode env once keeps a check to a few milliseconds.
"""

from __future__ import annotations

import threading
from typing import Any, Mapping

_local = threading.local()


def _env() -> Any:
    env = getattr(_local, "env", None)
    if env is None:
        from ..env import MMToolSandboxEnv

        env = MMToolSandboxEnv(mode="tool")
        _local.env = env
    return env


def run_oracle(scenario: Mapping[str, Any] | Any, *, max_steps: int = 400) -> dict[str, Any]:
    """Replay ``scenario``'s reference solution through the cached env; returns the final ``info``."""
    from .images import placeholder_images

    env = _env()
    with placeholder_images():  # the oracle never looks at pixels
        obs, info = env.reset(options={"task": scenario})
    for _ in range(max_steps):
        action = env.oracle_action(obs, info)
        obs, _, terminated, truncated, info = env.step(action)
        if terminated or truncated:
            break
    return info


def validate_scenario(scenario: Mapping[str, Any]) -> None:
    """Raise ``RuntimeError`` unless the reference solution reaches entity F1 = 1.0 with no action errors."""
    info = run_oracle(scenario)
    f1 = info.get("entity_f1")
    if f1 is None or f1 < 1.0 - 1e-9:
        detail = info.get("entity_diff") or {}
        raise RuntimeError(f"generated scenario {scenario.get('id')!r}: the reference solution scores entity F1 = {f1} "
                           f"(expected 1.0); diff: {str(detail)[:1500]}")
