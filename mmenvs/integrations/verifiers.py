"""mmenvs envs as `verifiers` environments (verifiers >= 0.4, its ``verifiers.v1`` stack).

    from mmenvs.integrations.verifiers import load_environment, model_context
    import verifiers.v1 as vf

    env = load_environment("VTCBench-v0", num_tasks=20, env_kwargs={"mode": "tool"})
    ctx = model_context("my-model", base_url="http://127.0.0.1:8000/v1")
    async with env.serving():
        episodes = [await env.run_episode(task, ctx) for task in env.taskset]
    rewards = [episode.traces[0].reward for episode in episodes]

How it maps:

- **Taskset** (``MMEnvsTaskset``): one task per task id of the env's suite (``task_ids()``, after
  ``env_kwargs["task_filter"]``), or, for a stream without ids (``suite="train"``), an endless stream
  of seeds. A task carries the env id, its kwargs, the task id and the reset seed; its system prompt
  is the env's ``action_description()``.
- **Env** (``MMEnvsEnv``): its ``run()`` resets the gym env (wrapped in ``ChatMessages``), opens the
  player's interaction with the first observation (text + data-URL images) and then steps the env
  with each reply — the reply's text, or its tool calls one by one (``env.tool_specs()`` are offered
  to the model when ``tools=True``) — answering with the next observation, until the episode ends.
  The trace's reward is the benchmark score (``info["score"]``; ``score`` reward, weight 1), and its
  ``info`` holds the task id, success, steps and whether the episode was truncated.
- **Harness** (``ChatHarness``): an in-process chat loop (no program to install, no container): each
  segment is one chat-completions call through the rollout's interception endpoint, so verifiers
  records every turn in the trace. Both run on verifiers' local ``subprocess`` runtime.

verifiers finds plugins by an importable module name; this module registers itself as
``mmenvs_verifiers`` (taskset id ``mmenvs-verifiers``) when imported, so ``load_environment`` works
in any process that imported it.
"""

from __future__ import annotations

import asyncio
import itertools
import sys
from collections.abc import Iterator
from typing import Any, Mapping

import gymnasium as gym

try:
    import verifiers.v1 as vf
    from verifiers.v1.dialects.chat import message_to_wire, parse_message
    from verifiers.v1.runtimes import ProgramResult, SubprocessConfig
except ImportError as exc:  # pragma: no cover - the message is the point
    raise ImportError("mmenvs.integrations.verifiers needs verifiers>=0.4 (pip install 'mmenvs[rl]' or 'verifiers')") from exc

PLUGIN_ID = "mmenvs-verifiers"
_MODULE_NAME = PLUGIN_ID.replace("-", "_")
__all__ = ["ChatHarness", "MMEnvsEnv", "MMEnvsTaskset", "load_environment", "model_context"]
# verifiers resolves plugins by module name (and reads its __all__): make this module importable under
# the plugin id before the config classes below validate their defaults through the loader.
sys.modules.setdefault(_MODULE_NAME, sys.modules[__name__])
#: Step cap of one rollout when the env's own cap is higher (a model that never ends the episode).
DEFAULT_MAX_TURNS = 50


# ---------------------------------------------------------------------------------------------- tasks
class MMEnvsData(vf.TaskData):
    env_id: str
    env_kwargs: dict[str, Any] = {}
    task_id: str | None = None
    seed: int = 0
    tools: list[dict[str, Any]] | None = None  # function specs offered to the model (None: text actions)
    max_images: int | None = 4


class MMEnvsTasksetConfig(vf.TasksetConfig):
    env_id: str = "VTCBench-v0"
    """The registered mmenvs env id."""
    env_kwargs: dict[str, Any] = {}
    """Keyword arguments of ``gym.make`` (suite, mode, task_filter, obs_size, ...)."""
    num_tasks: int | None = None
    """The first N task ids of the suite (None: all)."""
    seed: int = 0
    """Reset seed of the first task (task k resets with seed + k)."""
    tools: bool = False
    """Offer ``env.tool_specs()`` to the model as function tools (else it acts in text)."""
    max_images: int | None = 4
    """Images kept in the conversation (older ones become a marker)."""


class MMEnvsTask(vf.Task[MMEnvsData]):
    pass


class MMEnvsTaskset(vf.Taskset[MMEnvsTask, MMEnvsTasksetConfig]):
    """The env's suite as verifiers tasks (see the module docstring)."""

    def load(self) -> Iterator[MMEnvsTask]:
        config = self.config
        env = gym.make(config.env_id, **config.env_kwargs)
        try:
            unwrapped = env.unwrapped
            describe = getattr(unwrapped, "action_description", None)
            system = describe() if callable(describe) else None
            specs = unwrapped.tool_specs() if config.tools and callable(getattr(unwrapped, "tool_specs", None)) else None
            ids: list[str | None] = list(unwrapped.task_ids())
        finally:
            env.close()
        stream = iter(ids) if ids else itertools.repeat(None)
        if config.num_tasks is not None:
            stream = itertools.islice(stream, config.num_tasks)
        for k, task_id in enumerate(stream):
            yield MMEnvsTask(MMEnvsData(name=f"{config.env_id}/{task_id or f'seed-{config.seed + k}'}", id=task_id,
                                        prompt=None, system_prompt=system, env_id=config.env_id, env_kwargs=dict(config.env_kwargs),
                                        task_id=task_id, seed=config.seed + k, tools=specs, max_images=config.max_images),
                             config.task)

    @property
    def bounded(self) -> bool:  # a suite is finite; a stream of seeds is not (unless num_tasks caps it)
        if self._bounded is not None:
            return self._bounded
        if self.config.num_tasks is not None:
            return True
        env = gym.make(self.config.env_id, **self.config.env_kwargs)
        try:
            return bool(env.unwrapped.task_ids())
        finally:
            env.close()


# ---------------------------------------------------------------------------------------------- the harness
class ChatHarnessConfig(vf.HarnessConfig):
    pass


class ChatHarness(vf.Harness[ChatHarnessConfig]):
    """One chat-completions call per segment, in-process, through the rollout's interception endpoint."""

    APPENDS_SYSTEM_PROMPT = True
    SUPPORTS_RESUME = True
    EXECUTES_CODE = False
    NEEDS_CONTAINER = False

    async def launch(self, ctx: Any, trace: Any, runtime: Any, endpoint: str, secret: str, mcp_urls: dict[str, str],
                     data: vf.TaskData, tool_interception_url: str | None = None) -> ProgramResult:
        from openai import AsyncOpenAI

        system, prompt = self.resolve_prompt(data)
        messages: list[dict[str, Any]] = [{"role": "system", "content": system}] if system else []
        if isinstance(prompt, str):
            messages.append({"role": "user", "content": prompt})
        elif prompt:
            messages += [message_to_wire(m) for m in prompt]
        request: dict[str, Any] = {"model": ctx.model, "messages": messages}
        tools = getattr(data, "tools", None)
        if tools:
            request["tools"] = tools
        async with AsyncOpenAI(base_url=endpoint, api_key=secret, max_retries=0) as client:
            await client.chat.completions.create(**request)
        return ProgramResult(exit_code=0, stdout="", stderr="")


# ---------------------------------------------------------------------------------------------- the env
class MMEnvsEnvConfig(vf.EnvConfig):
    player: vf.AgentConfig = vf.AgentConfig(harness=ChatHarnessConfig(id=PLUGIN_ID), runtime=SubprocessConfig())
    max_turns: int = DEFAULT_MAX_TURNS
    """Replies a rollout takes at most (the env's own step cap ends it too)."""


class MMEnvsEnv(vf.Env[MMEnvsEnvConfig]):
    """Steps an mmenvs env with the player's replies; the reward is the benchmark score."""

    async def run(self, task: MMEnvsTask, agents: Any) -> None:
        from mmenvs.wrappers.chat import ChatMessages

        data = task.data
        env = ChatMessages(gym.make(data.env_id, **data.env_kwargs), max_images=data.max_images)
        info: dict[str, Any] = {}
        steps, terminated, truncated = 0, False, False
        try:
            options = {"task_id": data.task_id} if data.task_id else None
            await asyncio.to_thread(env.reset, seed=data.seed, options=options)
            opening = _vf_messages(env.messages())
            async with agents.player.interaction(task) as interaction:
                segment = await interaction.turn(opening)
                while not segment.terminated:
                    reply = _last_assistant(segment.messages)
                    before = len(env.messages())
                    _, _, terminated, truncated, info = await asyncio.to_thread(env.step, reply)
                    steps += 1
                    if terminated or truncated:
                        break
                    if steps >= self.config.max_turns:
                        truncated = True
                        break
                    # what the env answered: tool results and/or the next observation (after the reply itself)
                    answer = [m for m in env.messages()[before:] if m.get("role") != "assistant"]
                    segment = await interaction.turn(_vf_messages(answer))
            trace = interaction.trace
            trace.record_reward("score", float(info.get("score", 0.0)) if steps else 0.0, 1.0)
            trace.info.update({"env_id": data.env_id, "task_id": info.get("task_id", data.task_id), "steps": steps,
                               "success": bool(info.get("success", False)), "terminated": bool(terminated),
                               "truncated": bool(truncated), "action_error": info.get("action_error")})
        finally:
            await asyncio.to_thread(env.close)


def _last_assistant(messages: list[Any]) -> dict[str, Any]:
    """The segment's final assistant message as an OpenAI-style dict ChatMessages steps with."""
    for message in reversed(messages):
        if getattr(message, "role", None) == "assistant":
            wire = message_to_wire(message)
            return {"role": "assistant", "content": wire.get("content"), **({"tool_calls": wire["tool_calls"]} if wire.get("tool_calls") else {})}
    return {"role": "assistant", "content": ""}


def _vf_messages(messages: list[Mapping[str, Any]]) -> list[Any]:
    """Chat-adapter messages (OpenAI dicts) as verifiers messages (system messages left out: the
    task's system prompt is the action description)."""
    return [parse_message(dict(m)) for m in messages if m.get("role") != "system"]


# ---------------------------------------------------------------------------------------------- entry points
def load_environment(env_id: str = "VTCBench-v0", *, env_kwargs: Mapping[str, Any] | None = None, num_tasks: int | None = None,
                     seed: int = 0, tools: bool = False, max_images: int | None = 4, max_turns: int = DEFAULT_MAX_TURNS,
                     player: Mapping[str, Any] | None = None) -> MMEnvsEnv:
    """A verifiers ``Env`` over the mmenvs env ``env_id`` (see the module docstring). ``player``
    overrides fields of the player's ``AgentConfig`` (model, client, sampling, max_turns, ...)."""
    import mmenvs  # noqa: F401  (registers the env ids)

    if env_id not in gym.registry:
        raise ValueError(f"load_environment: unknown env id {env_id!r}; registered mmenvs ids: {', '.join(mmenvs.ENV_IDS)}")
    agent = {"harness": {"id": PLUGIN_ID}, "runtime": {"type": "subprocess"}, **dict(player or {})}
    config = MMEnvsEnvConfig(
        taskset=MMEnvsTasksetConfig(id=PLUGIN_ID, env_id=env_id, env_kwargs=dict(env_kwargs or {}), num_tasks=num_tasks, seed=seed,
                                    tools=tools, max_images=max_images),
        player=vf.AgentConfig.model_validate(agent), max_turns=max_turns)
    return MMEnvsEnv(config)


def model_context(model: str, *, base_url: str, api_key_var: str = "OPENAI_API_KEY", **sampling: Any) -> Any:
    """A verifiers ``ModelContext`` for an OpenAI-compatible endpoint (the key read from ``api_key_var``)."""
    from verifiers.v1.clients import ModelContext
    from verifiers.v1.configs.client import EvalClientConfig
    from verifiers.v1.types import Sampling

    return ModelContext(model=model, client=EvalClientConfig(base_url=base_url, api_key_var=api_key_var), sampling=Sampling(**sampling))

