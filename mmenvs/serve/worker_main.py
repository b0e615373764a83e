"""The code that runs inside a session worker process (see ``workers.py``). Imported by the
forkserver once, so forked workers start with mmenvs and its envs already imported."""

from __future__ import annotations

import signal
import time
import traceback
import uuid
from multiprocessing.connection import Connection
from typing import Any

import gymnasium as gym

import mmenvs  # noqa: F401  (registers the env ids)
from mmenvs.serve import protocol


def _framework_for(env: Any) -> str | None:
    # MacAgent's tools depend on the set-up; the served one exposes computer use and the shell together.
    return "hybrid" if type(env).__name__ == "MacAgentEnv" or "framework" in _parameters(env.tool_specs) else None


def _parameters(method: Any) -> set[str]:
    import inspect

    try:
        return set(inspect.signature(method).parameters)
    except (TypeError, ValueError):
        return set()


class _Session:
    """One env and its episode bookkeeping, driven by the server's commands."""

    def __init__(self, env_id: str, env_kwargs: dict[str, Any], image_format: str, allow_oracle: bool) -> None:
        self.env = gym.make(env_id, **env_kwargs)
        self.image_format = image_format
        self.allow_oracle = allow_oracle
        self.episode_id: str | None = None
        self.step_count = 0
        self.last: tuple[dict[str, Any], dict[str, Any]] | None = None
        self.done = False

    def result(self, obs: Any, reward: float, terminated: bool, truncated: bool, info: dict[str, Any],
               env_seconds: float) -> dict[str, Any]:
        self.last = (obs, info)
        self.done = bool(terminated or truncated)
        start = time.perf_counter()
        payload = protocol.step_result(obs, reward, terminated, truncated, info, self.env.observation_space,
                                       self.image_format)
        # where the worker's time went (the env, then encoding the observation): what the wire adds is the rest
        payload["server_timing"] = {"env_ms": 1000.0 * env_seconds,
                                    "encode_ms": 1000.0 * (time.perf_counter() - start)}
        return payload

    def reset(self, seed: int | None, options: dict[str, Any] | None, episode_id: str | None = None) -> dict[str, Any]:
        start = time.perf_counter()
        obs, info = self.env.reset(seed=seed, options=options)
        elapsed = time.perf_counter() - start
        self.episode_id = episode_id or uuid.uuid4().hex
        self.step_count = 0
        return self.result(obs, 0.0, False, False, info, elapsed)

    def step(self, action: Any) -> dict[str, Any]:
        if self.last is None:
            raise RuntimeError("step before reset: send a reset first")
        if self.done:
            raise RuntimeError("the episode is over (done): send a reset to start another")
        start = time.perf_counter()
        obs, reward, terminated, truncated, info = self.env.step(action)
        elapsed = time.perf_counter() - start
        self.step_count += 1
        return self.result(obs, reward, terminated, truncated, info, elapsed)

    def state(self) -> dict[str, Any]:
        info = self.last[1] if self.last else {}
        return {"episode_id": self.episode_id, "step_count": self.step_count, "done": self.done,
                "task_id": info.get("task_id"), "score": info.get("score")}

    def tools(self) -> list[dict[str, Any]]:
        env = self.env.unwrapped
        framework = _framework_for(env)
        return env.tool_specs(framework=framework) if framework else env.tool_specs()

    def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        from mmenvs.wrappers.chat import tool_call_action

        return self.step(tool_call_action(self.env, name, arguments))

    def oracle(self) -> Any:
        if not self.allow_oracle:
            raise RuntimeError("this server does not give oracle actions (start it with --oracle, for tests and demos)")
        if self.last is None:
            raise RuntimeError("oracle before reset: send a reset first")
        return self.env.unwrapped.oracle_action(*self.last)

    def describe(self) -> dict[str, Any]:
        env = self.env.unwrapped
        return {"observation_space": protocol.space_to_json(self.env.observation_space),
                "action_space": protocol.space_to_json(self.env.action_space),
                "has_tools": callable(getattr(env, "tool_specs", None)),
                "tool_framework": _framework_for(env) if callable(getattr(env, "tool_specs", None)) else None,
                "metadata": protocol.to_jsonable(dict(self.env.metadata or {}))}


#: What the server may ask of a worker.
_COMMANDS = frozenset({"reset", "step", "state", "tools", "call_tool", "oracle", "describe"})


def worker_main(conn: Connection, env_id: str, env_kwargs: dict[str, Any], image_format: str, allow_oracle: bool) -> None:
    """The worker's loop: make the env, then answer commands until ``close`` or the pipe closes."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C in the server's terminal: the server ends us
    session = None
    try:
        try:
            session = _Session(env_id, env_kwargs, image_format, allow_oracle)
        except Exception as exc:  # reported on the first command: the env cannot be made
            startup_error = f"gym.make({env_id!r}, **{env_kwargs!r}) failed: {type(exc).__name__}: {exc}"
        else:
            startup_error = None
        while True:
            try:
                command, *arguments = conn.recv()
            except (EOFError, OSError):
                return
            if command == "close":
                return
            if startup_error is not None:
                conn.send(("error", startup_error))
                continue
            try:
                if command not in _COMMANDS:
                    raise ValueError(f"unknown worker command {command!r}")
                value = getattr(session, command)(*arguments)
            except Exception as exc:
                conn.send(("error", f"{type(exc).__name__}: {exc}"))
                traceback.print_exc(limit=3)
            else:
                conn.send(("ok", value))
    finally:
        if session is not None:
            try:
                session.env.close()
            except Exception:
                traceback.print_exc(limit=3)
        conn.close()
