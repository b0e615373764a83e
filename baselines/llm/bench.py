"""The LLM harness's own overhead per step, for a 1280×800 MacAgent screenshot (issue 13's target: ≤ 5 ms).

``workloads()`` returns rows in the shape of ``mmenvs bench`` (``mmenvs.benchmarks.harness``):

- "harness step": ``LLMAgent.act`` with the model call replaced by a canned reply: recording the
  observation (JPEG-encoding the new full-size screenshot into a data URL), building the request
  (history with the image window, the cache key's hash) and turning the reply into an action.
- "harness step + loopback HTTP": the same through the real openai client and the project's test
  server on 127.0.0.1 (adds request serialisation, which grows with the images kept).

Run it alone with ``python -m mmenvs.baselines.llm.bench``.
"""

from __future__ import annotations

import json
import time
from typing import Any

import numpy as np


def _screenshot() -> np.ndarray:
    import gymnasium as gym

    env = gym.make("MacAgent-v0")
    try:
        _, info = env.reset(seed=0)
        return np.array(env.unwrapped.images.rgb(info["images"][-1]))
    finally:
        env.close()


class _ScreenshotStream:
    """Stands in for the env: a new 1280×800 screenshot every step (one pixel row changes), the
    action interface the agent reads, and MacAgent's class name so the pyautogui framework applies."""

    def __init__(self, screenshot: np.ndarray) -> None:
        from mmenvs.core import ImageStore

        self.screenshot = screenshot
        self.images = ImageStore()
        self.step_index = 0

    def action_description(self) -> str:
        return "DONE | FAIL | WAIT | ```python pyautogui calls```"

    def tool_specs(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": {"name": "computer_use", "description": "GUI", "parameters": {"type": "object"}}}]

    def next(self) -> tuple[dict[str, Any], dict[str, Any]]:
        frame = self.screenshot.copy()
        frame[self.step_index % frame.shape[0], :, :] ^= 0xFF
        self.step_index += 1
        image_id = self.images.add(frame)
        return {"text": f"OK ({self.step_index} input event(s)).", "instruction": "Open Notes."}, {"images": [image_id], "action_error": None}


_ScreenshotStream.__name__ = _ScreenshotStream.__qualname__ = "MacAgentEnv"


def _measure_steps(agent: Any, stream: _ScreenshotStream, steps: int) -> list[float]:
    obs, info = stream.next()
    agent.bind(stream)
    agent.reset(info)
    agent.act(obs, info)  # the first step builds the system prompt
    samples = []
    for _ in range(steps):
        obs, info = stream.next()
        start = time.perf_counter()
        agent.act(obs, info)
        samples.append((time.perf_counter() - start) * 1000.0)
    return samples


def workloads(steps: int = 60) -> list[dict[str, Any]]:
    from openai.types.chat import ChatCompletion

    from mmenvs.baselines.llm.agent import LLMAgent
    from mmenvs.baselines.llm.testserver import OpenAITestServer, replay
    from mmenvs.benchmarks.harness import timing_row

    screenshot = _screenshot()
    reply = ChatCompletion.model_validate({
        "id": "c", "object": "chat.completion", "created": 0, "model": "m",
        "choices": [{"index": 0, "finish_reason": "stop",
                     "message": {"role": "assistant", "content": "Click Notes.\n```python\npyautogui.click(640, 780)\n```"}}],
        "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})
    agent = LLMAgent("m", base_url="http://127.0.0.1:9/v1", api_key="k", framework="pyautogui", max_images=4)
    agent._call_endpoint = lambda request: (json.dumps(request["messages"][-1]["content"][0]), reply)[1]  # no network
    rows = [timing_row(f"LLM harness: step, {screenshot.shape[1]}x{screenshot.shape[0]} JPEG q85 (no model call)",
                       _measure_steps(agent, _ScreenshotStream(screenshot), steps))]
    texts = [reply.choices[0].message.content] * (steps + 1)
    with OpenAITestServer(replay(*texts)) as server:
        live = LLMAgent("m", base_url=server.base_url, api_key="k", framework="pyautogui", max_images=4)
        rows.append(timing_row("LLM harness: step + loopback HTTP (openai client, test server, 4 images kept)",
                               _measure_steps(live, _ScreenshotStream(screenshot), steps)))
        live.close()
    return rows


if __name__ == "__main__":
    from mmenvs.benchmarks.harness import format_rows

    print(format_rows(workloads()))
