"""Reward shaping for research: ``PotentialShaping`` (Ng, Harada & Russell 1999) and ready-made potentials.

Potential-based shaping adds ``F(s, s') = gamma * Phi(s') - Phi(s)`` to every reward. Over an episode
the shaping terms telescope: the discounted shaped return is the unshaped one plus
``gamma**T * Phi(s_T) - Phi(s_0)``, so (with ``Phi = 0`` at terminal states) the optimal policies are
those of the unshaped task. ``Phi`` is any function of the observation and info.

Every mmenvs env reports ``info["reward_components"]`` (the benchmark's parts of the step's reward,
e.g. ``{"score": …}``, MacAgent's ``{"goal_checkpoints": …, "guard_checkpoints": …}``); this wrapper
adds ``"shaping"`` to that dict, so the parts always sum to the reward it returns.
"""

from __future__ import annotations

from typing import Any, Callable

import gymnasium as gym

Potential = Callable[[Any, dict[str, Any]], float]
TERMINAL_POTENTIALS = ("zero", "keep")


def score_potential(obs: Any, info: dict[str, Any]) -> float:
    """``Phi = info["score"]``: the benchmark's current score (checkpoint fraction, entity F1, answer
    correctness). With ``gamma=1`` and ``terminal="keep"`` the shaping terms are the score's per-step
    changes (what ``reward_mode="progress"`` pays), on top of the env's own rewards. The score must be
    current every step: DebugEcho and VTCBench score every step; MacAgent and MMToolSandbox (whose
    scoring is costly) only at reset and at the end unless ``reward_mode="progress"``."""
    return float(info.get("score", 0.0))


def step_penalty_potential(rate: float = 0.01) -> Potential:
    """``Phi = -rate * info["step"]``: with ``gamma=1`` a cost of ``rate`` per step, as a potential (a
    step cost that leaves the optimal policies of the discounted task unchanged only through Phi)."""
    def potential(obs: Any, info: dict[str, Any]) -> float:
        return -rate * float(info.get("step", 0))

    return potential


class PotentialShaping(gym.Wrapper):
    """Add ``gamma * Phi(s') - Phi(s)`` to each reward.

    ``potential(obs, info) -> float`` is evaluated on the reset observation and after every step.
    ``terminal="zero"`` (default, as Ng et al. require for episodic tasks) takes ``Phi(s_T) = 0`` when the
    episode terminates (not when it is truncated: a truncated state is not terminal); ``"keep"`` uses the
    potential of the last observation. ``gamma`` should be the discount of the learner.

    ``info`` gains ``"reward_components"`` (the env's parts plus ``"shaping"``; they sum to the returned
    reward), ``"potential"`` (``Phi(s')`` as used) and ``"unshaped_reward"``.
    """

    def __init__(self, env: gym.Env, potential: Potential, gamma: float = 0.99, terminal: str = "zero") -> None:
        super().__init__(env)
        if not callable(potential):
            raise TypeError(f"PotentialShaping: potential must be a function (obs, info) -> float, got {potential!r}")
        if not 0.0 <= float(gamma) <= 1.0:
            raise ValueError(f"PotentialShaping: gamma must lie in [0, 1], got {gamma!r}")
        if terminal not in TERMINAL_POTENTIALS:
            raise ValueError(f"PotentialShaping: terminal must be one of {TERMINAL_POTENTIALS}, got {terminal!r}")
        self.potential, self.gamma, self.terminal = potential, float(gamma), terminal
        self._phi: float | None = None

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self._phi = self._evaluate(obs, info)
        info["potential"] = self._phi
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        if self._phi is None:
            raise RuntimeError("PotentialShaping: step() before reset()")
        obs, reward, terminated, truncated, info = self.env.step(action)
        phi_next = 0.0 if terminated and self.terminal == "zero" else self._evaluate(obs, info)
        shaping = self.gamma * phi_next - self._phi
        components = dict(info.get("reward_components") or {"env": float(reward)})
        components["shaping"] = components.get("shaping", 0.0) + shaping
        info["reward_components"] = components
        info["potential"] = phi_next
        info["unshaped_reward"] = float(reward)
        self._phi = phi_next
        return obs, float(reward) + shaping, terminated, truncated, info

    def _evaluate(self, obs: Any, info: dict[str, Any]) -> float:
        value = float(self.potential(obs, info))
        if value != value or value in (float("inf"), float("-inf")):
            raise ValueError(f"PotentialShaping: the potential returned {value}; it must be a finite number")
        return value
