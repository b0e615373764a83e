"""Every env × framework reaches the oracle's score through the LLM path (issue 13): the project's test
server on 127.0.0.1 answers each request from a scripted "model" that asks the env's oracle, in
process, for the next step of the task's reference solution and answers it in the framework's form
(text, or ``tool_calls`` of the env's declared tools); the real openai client and ``LLMAgent`` carry
it, so the prompt (``action_description()``), the tools (``tool_specs()``) and the parsing of the
reply are the ones a real model meets."""

from __future__ import annotations

import inspect
import json
import random
from typing import Any, Callable, Iterator

import gymnasium as gym
import pytest

import mmenvs  # noqa: F401  (registers the envs)
from mmenvs.baselines import load_agent
from mmenvs.baselines.llm.testserver import OpenAITestServer, tool_calls
from mmenvs.core import code_blocks
from mmenvs.macagent.actions import PyAutoGUIShim, parse_action, straight_line_calls
from mmenvs.macagent.solutions import solution_step

FAST = {"backoff": 0.01, "backoff_max": 0.05, "timeout": 30.0, "max_images": 2}
Translate = Callable[[Any], Any]


# ---------------------------------------------------------------------------------------------- playing
def play_oracle(env: gym.Env, task_id: str) -> float:
    """The oracle's own score on ``task_id`` (actions straight into the env)."""
    obs, info = env.reset(seed=0, options={"task_id": task_id})
    for _ in range(500):
        obs, _, terminated, truncated, info = env.step(env.unwrapped.oracle_action(obs, info))
        if terminated or truncated:
            return info["score"]
    raise AssertionError(f"{task_id}: the oracle did not finish")


def play_llm(env: gym.Env, task_id: str, framework: str, next_reply: Callable[[dict[str, Any]], Any]) -> dict[str, Any]:
    """One episode through the LLM agent, the openai client and the test server; returns the last info."""
    state = {"obs": None, "info": None}

    def policy(request: dict[str, Any]) -> Any:
        return next_reply(state)

    with OpenAITestServer(policy) as server:
        agent = load_agent("llm", model="scripted-oracle", base_url=server.base_url, api_key="test", framework=framework, **FAST)
        agent.bind(env.unwrapped)
        obs, info = env.reset(seed=0, options={"task_id": task_id})
        agent.reset(info)
        description = _with_framework(env.unwrapped.action_description, framework)  # as the episode starts
        state.update(obs=obs, info=info, fresh=True)
        try:
            for _ in range(500):
                action = agent.act(obs, info)
                state["fresh"] = False
                obs, _, terminated, truncated, info = env.step(action)
                state.update(obs=obs, info=info)
                assert info.get("action_error") is None, (task_id, action, info["action_error"])
                if terminated or truncated:
                    assert agent.ledger()["reprompts"] == 0
                    request = server.answered[-1]
                    assert description in request["messages"][0]["content"]
                    if agent.framework.uses_tools:
                        assert request["tools"] == _with_framework(env.unwrapped.tool_specs, framework)
                    return info
        finally:
            agent.close()
    raise AssertionError(f"{task_id}: the LLM path did not finish")


def _with_framework(method: Callable[..., Any], framework: str) -> Any:
    return method(framework=framework) if "framework" in inspect.signature(method).parameters else method()


def oracle_replies(env: gym.Env, translate: Translate) -> Callable[[dict[str, Any]], Any]:
    """A scripted model: the env's oracle action for the current observation, in the framework's form."""
    def next_reply(state: dict[str, Any]) -> Any:
        return translate(env.unwrapped.oracle_action(state["obs"], state["info"]))

    return next_reply


def as_text(action: Any) -> str:
    assert isinstance(action, str), action
    return action


def json_call_as_tool_call(action: Any) -> Any:
    """A JSON tool call the oracle writes as text becomes a function call; other text stays text."""
    if isinstance(action, dict):
        return tool_calls((action["name"], action["arguments"]))
    try:
        call = json.loads(action)
    except (TypeError, ValueError):
        return action
    return tool_calls((call["name"], call["arguments"]))


def sampled(ids: list[str], count: int, seed: int = 13) -> list[str]:
    return sorted(random.Random(seed).sample(sorted(ids), min(count, len(ids))))


# ---------------------------------------------------------------------------------------------- DebugEcho
@pytest.mark.parametrize("framework", ["text", "tool"])
def test_debug_echo_reaches_the_oracle_score(framework):
    env = gym.make("DebugEcho-v0")

    def translate(action: str) -> Any:
        word = action.removeprefix("<answer>").removesuffix("</answer>")
        return tool_calls(("answer", {"word": word})) if framework == "tool" else action

    for task_id in sampled(env.unwrapped.task_ids(), 3):
        info = play_llm(env, task_id, framework, oracle_replies(env, translate))
        assert info["score"] == play_oracle(env, task_id) == 1.0
    env.close()


# ---------------------------------------------------------------------------------------------- tool/code envs
def play_tool_env(env_id: str, framework: str, count: int) -> Iterator[tuple[str, dict[str, Any], float]]:
    """For ``count`` sampled tasks of an env with ``mode`` tool|code: the task id, the last info of the LLM
    episode and the oracle's own score. In tool mode the oracle's JSON calls are answered as ``tool_calls``."""
    env = gym.make(env_id, mode=framework)
    translate = json_call_as_tool_call if framework == "tool" else as_text
    try:
        for task_id in sampled(env.unwrapped.task_ids(), count):
            info = play_llm(env, task_id, framework, oracle_replies(env, translate))
            yield task_id, info, play_oracle(env, task_id)
    finally:
        env.close()


@pytest.mark.parametrize("framework", ["tool", "code"])
def test_vtcbench_reaches_the_oracle_score(framework):
    for task_id, info, oracle in play_tool_env("VTCBench-v0", framework, 4):
        assert info["score"] == oracle == 1.0, task_id
        assert info["tool_calls"], task_id  # the chain ran (not only an answer)


@pytest.mark.parametrize("framework", ["code", "tool"])
def test_mmtoolsandbox_reaches_the_oracle_score(framework):
    for task_id, info, oracle in play_tool_env("MMToolSandbox-v0", framework, 2):
        assert info["score"] == pytest.approx(oracle) and oracle > 0.9, task_id


# ---------------------------------------------------------------------------------------------- MacAgent
_CLICK = inspect.signature(PyAutoGUIShim.click)
_COMPUTER_13_AS_PYAUTOGUI = {"RIGHT_CLICK": "rightClick", "DOUBLE_CLICK": "doubleClick", "MOVE_TO": "moveTo", "DRAG_TO": "dragTo"}


def computer_13_as_pyautogui(action: dict[str, Any]) -> str:
    """An OSWorld computer_13 dict (as reference solutions and element steps give) as pyautogui code."""
    verb = action["action_type"]
    params = {k: v for k, v in action.items() if k != "action_type"}
    point = [params[k] for k in ("x", "y") if k in params]
    if verb == "CLICK":
        call = f"click({', '.join(map(repr, point))}{', ' if point else ''}clicks={params.get('num_clicks', 1)!r}, button={params.get('button', 'left')!r})"
    elif verb in _COMPUTER_13_AS_PYAUTOGUI:
        call = f"{_COMPUTER_13_AS_PYAUTOGUI[verb]}({', '.join(map(repr, point))})"
    elif verb == "SCROLL":
        assert not params.get("dx")
        call = f"scroll({params.get('dy', 0)!r})"
    elif verb == "TYPING":
        call = f"write({params['text']!r})"
    elif verb in ("PRESS", "KEY_DOWN", "KEY_UP"):
        call = f"{ {'PRESS': 'press', 'KEY_DOWN': 'keyDown', 'KEY_UP': 'keyUp'}[verb]}({params['key']!r})"
    elif verb == "HOTKEY":
        call = f"hotkey({', '.join(map(repr, params['keys']))})"
    else:
        call = f"{ {'MOUSE_DOWN': 'mouseDown', 'MOUSE_UP': 'mouseUp'}[verb]}(button={params.get('button', 'left')!r})"
    return f"```python\nimport pyautogui\npyautogui.{call}\n```"


def mac_text(step: Any) -> str:
    """A solution step in the text grammar of the pyautogui and hybrid frameworks."""
    if isinstance(step, dict):
        return computer_13_as_pyautogui(step)
    if step.strip().startswith("```") or parse_action(step).kind == "control":
        return step
    return f"```python\n{step}\n```"  # bare pyautogui code, fenced as Prompt 1a asks


def computer_use_calls(step: Any) -> list[dict[str, Any]] | None:
    """A solution step as computer_use arguments (one dict per call), or None if the tool cannot say it."""
    if isinstance(step, dict):
        params = {k: v for k, v in step.items() if k != "action_type"}
        coordinate = {"coordinate": [params["x"], params["y"]]} if "x" in params else {}
        verb = step["action_type"]
        if verb == "CLICK":
            return _click(coordinate, params.get("num_clicks", 1), params.get("button", "left"))
        simple = {"RIGHT_CLICK": "right_click", "DOUBLE_CLICK": "double_click", "MOVE_TO": "mouse_move", "DRAG_TO": "left_click_drag"}
        if verb in simple:
            return [{"action": simple[verb], **coordinate}]
        if verb == "TYPING":
            return [{"action": "type", "text": params["text"]}]
        if verb == "PRESS":
            return [{"action": "key", "keys": [params["key"]]}]
        if verb == "HOTKEY":
            return [{"action": "key", "keys": list(params["keys"])}]
        if verb == "SCROLL" and not params.get("dx"):
            return [{"action": "scroll", "pixels": params.get("dy", 0)}]
        return None
    parsed = parse_action(step)
    if parsed.kind == "control":
        return [{"action": "terminate", "status": "success"}] if parsed.word == "DONE" else (
            [{"action": "wait"}] if parsed.word == "WAIT" else [{"action": "terminate", "status": "failure"}])
    if parsed.kind == "computer":
        return computer_use_calls({"action_type": parsed.verb, **parsed.params})
    calls = straight_line_calls(parsed.code) if parsed.kind == "python" else None
    if calls is None:
        return None
    out: list[dict[str, Any]] = []
    for call in calls:
        converted = _shim_call(call.name, call.args, call.kwargs)
        if converted is None:
            return None
        out += converted
    return out


def _click(coordinate: dict[str, Any], clicks: int, button: str) -> list[dict[str, Any]] | None:
    name = {(1, "left"): "left_click", (1, "right"): "right_click", (1, "middle"): "middle_click",
            (2, "left"): "double_click", (3, "left"): "triple_click"}.get((clicks, button))
    return [{"action": name, **coordinate}] if name else None


def _shim_call(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> list[dict[str, Any]] | None:
    method = getattr(PyAutoGUIShim, name, None)
    bound = inspect.signature(method).bind(None, *args, **kwargs).arguments if method else {}
    point = {"coordinate": [bound["x"], bound["y"]]} if bound.get("x") is not None and bound.get("y") is not None else {}
    if name == "click":
        return _click(point, bound.get("clicks", 1), bound.get("button", "left"))
    simple = {"doubleClick": "double_click", "tripleClick": "triple_click", "rightClick": "right_click",
              "middleClick": "middle_click", "moveTo": "mouse_move", "dragTo": "left_click_drag"}
    if name in simple and bound.get("button", "left") == "left":
        return [{"action": simple[name], **point}]
    if name in ("write", "typewrite") and isinstance(bound["message"], str):
        return [{"action": "type", "text": bound["message"]}]
    if name == "press":
        keys = bound["keys"] if isinstance(bound["keys"], (list, tuple)) else [bound["keys"]]
        return [{"action": "key", "keys": [key]} for _ in range(bound.get("presses", 1)) for key in keys]
    if name == "hotkey":
        return [{"action": "key", "keys": list(bound["keys"])}]
    if name in ("scroll", "vscroll"):
        return [{"action": "scroll", "pixels": bound["clicks"], **point}]
    if name == "sleep":
        return [{"action": "wait", "time": bound.get("seconds", 0)}]
    return None


class MacOracle:
    """The scripted model for MacAgent: the reference solution step by step (element steps resolved
    against the screen when the request comes), in the framework's form; one step per reply."""

    def __init__(self, env: gym.Env, framework: str) -> None:
        self.env, self.framework, self.cursor = env, framework, 0

    def __call__(self, state: dict[str, Any]) -> Any:
        if state.get("fresh"):
            self.cursor = 0
        unwrapped = self.env.unwrapped
        step = solution_step(unwrapped.task, self.cursor, unwrapped.backend)
        self.cursor += 1
        if self.framework != "computer_use":
            return mac_text(step)
        calls = computer_use_calls(step)
        assert calls is not None, step
        return tool_calls(*[("computer_use", c) for c in calls], content="Action: the next step of the task.")


def mac_tasks(env: gym.Env, framework: str) -> list[str]:
    """Tasks whose whole reference solution the framework can say (GUI-only for pyautogui and
    computer_use; any for hybrid)."""
    unwrapped = env.unwrapped
    eligible = []
    for task_id in unwrapped.task_ids():
        steps = unwrapped.load_task(task_id).reference_solution
        plain = [s for s in steps if not (isinstance(s, dict) and ("click_element" in s or "drag_element" in s))]
        if framework == "hybrid":
            eligible.append(task_id)
        elif framework == "pyautogui":
            if all(isinstance(s, dict) or parse_action(s).kind in ("python", "computer", "control") for s in plain):
                eligible.append(task_id)
        elif all(computer_use_calls(s) is not None for s in plain) and not any(
                isinstance(s, dict) and "drag_element" in s for s in steps):
            eligible.append(task_id)
    return eligible


@pytest.fixture(scope="module")
def mac_env():
    env = gym.make("MacAgent-v0", max_steps=200)
    yield env
    env.close()


@pytest.mark.parametrize("framework", ["pyautogui", "computer_use", "hybrid"])
def test_macagent_reaches_the_oracle_score(mac_env, framework):
    eligible = mac_tasks(mac_env, framework)
    assert len(eligible) >= 20, framework  # the sample is drawn from a real share of the suite
    for task_id in sampled(eligible, 3):
        info = play_llm(mac_env, task_id, framework, MacOracle(mac_env, framework))
        assert info["score"] == play_oracle(mac_env, task_id) == 1.0, task_id
        if framework == "hybrid":
            continue
        kinds = {parse_action(mac_text(s)).kind for s in mac_env.unwrapped.task.reference_solution
                 if not (isinstance(s, dict) and ("click_element" in s or "drag_element" in s))}
        assert kinds <= {"python", "control"}, (task_id, kinds)  # GUI only: nothing ran through a shell


def test_macagent_hybrid_sample_uses_code_actions(mac_env):
    """The hybrid sample includes shell or AppleScript steps (the set-up's point)."""
    kinds = set()
    for task_id in sampled(mac_tasks(mac_env, "hybrid"), 3):
        for step in mac_env.unwrapped.load_task(task_id).reference_solution:
            if isinstance(step, str):
                kinds |= {b.language for b in code_blocks(step)}
    assert kinds & {"bash", "applescript"}, kinds
