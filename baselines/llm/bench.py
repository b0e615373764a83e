"""The LLM harness's own overhead per step, next to the MacAgent env step it wraps (issue 13's target:
≤ 5 ms for a 1280×800 screenshot step).

``workloads()`` returns rows in the shape of ``mmenvs bench`` (``mmenvs.benchmarks.harness``). One real
agent–env loop on MacAgent-v0 (pyautogui framework, the env's own ``action_description()``): the reply
is a pyautogui click on Finder's sidebar that changes the window every step, so every step stores a
new full-size screenshot the harness must encode. Interleaved, so machine load hits both alike:

- "env step": ``env.step`` of that click (input event, new screenshot, accessibility tree);
- "harness step": ``LLMAgent.act`` with the model call replaced by the canned reply: recording the
  observation (JPEG-encoding the new screenshot into a data URL), building the request (history with
  the image window) and turning the reply into an action;
- "harness step + loopback HTTP": the same through the real openai client and the project's test
  server on 127.0.0.1 (adds request serialisation, which grows with the images kept).

Each row gives wall-clock median/p95 and, in its note, the median CPU time of the process (other
helpers' load stretches wall time, not CPU time). Run it alone with ``python -m mmenvs.baselines.llm.bench``.
"""

from __future__ import annotations

import time
from typing import Any, Callable

import numpy as np

#: The Finder task and sidebar rows of MacAgent's own GUI bench (a click there changes the window).
from mmenvs.macagent.bench import FINDER_CLICK_TASK, FINDER_SIDEBAR_ROWS_Y, FINDER_SIDEBAR_X

TARGET_MS = 5.0


def _click(step: int) -> str:
    y = FINDER_SIDEBAR_ROWS_Y[step % 2]
    return f"Click the sidebar row.\n```python\nimport pyautogui\npyautogui.click({FINDER_SIDEBAR_X}, {y})\n```"


def _completion(text: str) -> Any:
    from openai.types.chat import ChatCompletion

    return ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": text}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})


def _timed(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    wall, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return value, (time.perf_counter() - wall) * 1000.0, (time.process_time() - cpu) * 1000.0


def measure_loop(env: Any, agent: Any, steps: int, warmup: int = 4) -> dict[str, list[float]]:
    """Play ``steps`` agent–env steps on the Finder task; wall and CPU milliseconds of each env step
    and each ``agent.act`` (the first ``warmup`` of each left out)."""
    obs, info = env.reset(options={"task_id": FINDER_CLICK_TASK})
    agent.bind(env)
    agent.reset(info)
    samples: dict[str, list[float]] = {"env": [], "env_cpu": [], "act": [], "act_cpu": []}
    action = agent.act(obs, info)  # the first step builds the system prompt
    for index in range(steps + warmup):
        (obs, _, _, _, info), env_wall, env_cpu = _timed(lambda: env.step(action))
        if info.get("action_error"):
            raise RuntimeError(f"LLM harness bench: the env refused {action!r}: {info['action_error']}")
        if not info.get("images"):
            raise RuntimeError("LLM harness bench: the click left the screen as it was (no new screenshot to encode)")
        action, act_wall, act_cpu = _timed(lambda: agent.act(obs, info))
        if index >= warmup:
            for key, value in (("env", env_wall), ("env_cpu", env_cpu), ("act", act_wall), ("act_cpu", act_cpu)):
                samples[key].append(value)
    return samples


def workloads(steps: int = 60) -> list[dict[str, Any]]:
    from mmenvs.baselines.llm.agent import LLMAgent
    from mmenvs.baselines.llm.testserver import OpenAITestServer
    from mmenvs.benchmarks.harness import timing_row
    from mmenvs.macagent.env import MacAgentEnv

    env = MacAgentEnv(max_steps=100_000)  # never truncated mid-batch; screenshots kept (the agent reads the store)
    try:
        width, height = env.backend.screen_size
        replies = {"n": 0}

        def canned(request: dict[str, Any]) -> Any:
            replies["n"] += 1
            return _completion(_click(replies["n"]))

        agent = LLMAgent("m", base_url="http://127.0.0.1:9/v1", api_key="k", framework="pyautogui", max_images=4)
        agent._call_endpoint = canned  # no network: the harness's own work only
        local = measure_loop(env, agent, steps)

        def policy(request: dict[str, Any]) -> str:
            replies["n"] += 1
            return _click(replies["n"])

        with OpenAITestServer(policy) as server:
            live = LLMAgent("m", base_url=server.base_url, api_key="k", framework="pyautogui", max_images=4)
            loopback = measure_loop(env, live, steps)
            live.close()
    finally:
        env.close()

    def median(values: list[float]) -> float:
        return float(np.median(values))

    env_median = median(local["env"] + loopback["env"])
    return [
        timing_row(f"LLM harness: the env step it wraps (MacAgent pyautogui click that changes the window, new {width}x{height} screenshot)",
                   local["env"] + loopback["env"], note=f"CPU {median(local['env_cpu'] + loopback['env_cpu']):.2f} ms median"),
        timing_row(f"LLM harness: own work per step, {width}x{height} JPEG q85 data URL + request + reply parse (no model call)",
                   local["act"], target_ms=TARGET_MS,
                   note=f"CPU {median(local['act_cpu']):.2f} ms median; {100 * median(local['act']) / env_median:.0f}% of the env step"),
        timing_row("LLM harness: own work per step + loopback HTTP (openai client, test server, 4 images kept)", loopback["act"],
                   note=f"CPU {median(loopback['act_cpu']):.2f} ms median (client and server threads of this process)"),
    ]


if __name__ == "__main__":
    from mmenvs.benchmarks.harness import format_rows

    print(format_rows(workloads()))
