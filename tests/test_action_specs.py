"""Each env's action description and tool schemas come from the declarations its parser checks
(issue 13, item 1): the schemas are valid JSON Schema and accept exactly what the parser accepts (every
declared parameter, no undeclared one), the descriptions name every verb the parser takes and none it
refuses, and MacAgent's foreign dict formats (OpenAI and Anthropic computer use, the computer_use tool)
become exactly the input events of the pyautogui calls they stand for."""

from __future__ import annotations

import copy
import re
from typing import Any

import gymnasium as gym
import jsonschema
import numpy as np
import pytest

import mmenvs  # noqa: F401  (registers the envs)
from mmenvs.core import ActionError, FunctionDecl, Param, function_spec
from mmenvs.debug.env import ACTIONS as ECHO_ACTIONS
from mmenvs.debug.env import DebugEchoEnv
from mmenvs.macagent import action_specs
from mmenvs.toolsandbox.env import MODE_GRAMMARS
from mmenvs.macagent.actions import VERB_PARAMS, PyAutoGUIShim, parse_action, run_calls, straight_line_calls
from mmenvs.vtc.env import VTCBenchEnv, describe_actions
from mmenvs.vtc.tools import TOOLS, ToolError, validate_arguments

VALIDATOR = jsonschema.Draft202012Validator


# ---------------------------------------------------------------------------------------------- helpers
def sample(schema: dict[str, Any]) -> Any:
    """A value the schema accepts (its default where it has one)."""
    if "default" in schema:
        return copy.deepcopy(schema["default"])
    if "anyOf" in schema:
        return sample(schema["anyOf"][0])
    if "enum" in schema:
        return schema["enum"][0]
    kind = schema.get("type")
    if kind in ("integer", "number"):
        value = schema.get("minimum", 1)
        if "odd" in schema.get("description", "") and value % 2 == 0:
            value += 1
        return int(value) if kind == "integer" else value
    if kind == "string":
        return "img_0" if schema.get("pattern") else "x"
    if kind == "boolean":
        return True
    if kind == "array":
        return [sample(schema.get("items", {"type": "string"})) for _ in range(max(1, schema.get("minItems", 1)))]
    if kind == "object" or not schema or set(schema) == {"description"}:
        return {}
    raise AssertionError(f"no sample for {schema}")


def wrong_type(schema: dict[str, Any]) -> Any:
    """A value of another JSON type than the schema's (None when the schema has no single type)."""
    return {"integer": "12", "number": "1.5", "string": 12345, "boolean": "yes", "array": "x", "object": "x"}.get(schema.get("type"))


def check_function_spec(spec: dict[str, Any]) -> dict[str, Any]:
    """``spec`` is an OpenAI function tool whose parameters are a valid JSON Schema object; returns them."""
    assert spec["type"] == "function" and set(spec["function"]) == {"name", "description", "parameters"}
    parameters = spec["function"]["parameters"]
    VALIDATOR.check_schema(parameters)
    assert parameters["type"] == "object" and parameters["additionalProperties"] is False
    assert set(parameters["required"]) <= set(parameters["properties"])
    return parameters


def required_sample(parameters: dict[str, Any]) -> dict[str, Any]:
    return {name: sample(parameters["properties"][name]) for name in parameters["required"]}


def assert_schema_refuses(parameters: dict[str, Any], arguments: dict[str, Any]) -> None:
    assert not VALIDATOR(parameters).is_valid(arguments), arguments


# ---------------------------------------------------------------------------------------------- core
def test_core_param_schema_and_check_agree():
    param = Param("n", "integer", "How many.", 2, minimum=1, maximum=5)
    assert param.schema() == {"type": "integer", "minimum": 1, "maximum": 5, "description": "How many.", "default": 2}
    assert param.check(3.0, "n") == 3
    for bad in (0, 6, 2.5, True, "3"):
        with pytest.raises(ActionError) as caught:
            param.check(bad, "f: parameter 'n'")
        assert caught.value.kind == "bad_parameter" and "f: parameter 'n'" in str(caught.value)
        assert_schema_refuses({"type": "object", "properties": {"n": param.schema()}}, {"n": bad})
    point = Param("p", "array", "A point.", items="number", item_minimum=0, min_items=2, max_items=2, nullable=True, default=None)
    VALIDATOR.check_schema(point.schema())
    assert point.check([1, 2.5], "p") == [1, 2.5] and point.check(None, "p") is None
    with pytest.raises(ActionError, match="exactly 2 items"):
        point.check([1], "p")


def test_function_decl_refuses_undeclared_and_names_missing_parameters():
    decl = FunctionDecl("greet", "Say hello.", (Param("name", "string", "Who."), Param("times", "integer", "", 1, minimum=1)))
    assert decl.signature() == "greet(name, times=1)"
    assert decl.check_arguments({"name": "Ada"}) == {"name": "Ada", "times": 1}
    with pytest.raises(ActionError) as caught:
        decl.check_arguments({"name": "Ada", "loud": True})
    assert caught.value.kind == "unknown_parameter" and "'loud'" in str(caught.value)
    with pytest.raises(ActionError) as caught:
        decl.check_arguments({})
    assert caught.value.kind == "missing_parameter" and "'name'" in str(caught.value)
    check_function_spec(decl.openai())
    with pytest.raises(ValueError, match="type 'object'"):
        function_spec("x", "", {"type": "array"})


# ---------------------------------------------------------------------------------------------- VTC-Bench
def test_vtc_tool_specs_are_the_34_declared_tools_and_valid_json_schema():
    env = VTCBenchEnv()
    specs = env.tool_specs()
    assert [s["function"]["name"] for s in specs] == list(TOOLS) and len(specs) == 34
    for spec in specs:
        parameters = check_function_spec(spec)
        assert parameters == TOOLS[spec["function"]["name"]].schema()
        assert parameters["properties"]["image"]["default"] == "img_0"


@pytest.mark.parametrize("tool", list(TOOLS))
def test_vtc_schema_accepts_what_the_parser_accepts(tool):
    parameters = check_function_spec(next(s for s in VTCBenchEnv().tool_specs() if s["function"]["name"] == tool))
    base = required_sample(parameters)
    for name, schema in parameters["properties"].items():
        arguments = {**base, name: sample(schema)}
        VALIDATOR(parameters).validate(arguments)
        image, params = validate_arguments(tool, arguments)  # every declared parameter is accepted
        assert image == arguments.get("image", "img_0") and set(params) == {p.name for p in TOOLS[tool].params}
        bad = wrong_type(schema)
        if bad is not None and name != "image":
            with pytest.raises(ToolError):
                validate_arguments(tool, {**base, name: bad})
            assert_schema_refuses(parameters, {**base, name: bad})
    with pytest.raises(ToolError) as caught:
        validate_arguments(tool, {**base, "not_a_parameter": 1})
    assert caught.value.kind == "unknown_parameter"
    assert_schema_refuses(parameters, {**base, "not_a_parameter": 1})
    for name in parameters["required"]:
        with pytest.raises(ToolError) as caught:
            validate_arguments(tool, {k: v for k, v in base.items() if k != name})
        assert caught.value.kind == "missing_parameter"


@pytest.mark.parametrize("mode", ["tool", "code"])
def test_vtc_description_is_the_reset_grammar_and_names_every_tool(mode):
    env = gym.make("VTCBench-v0", mode=mode)
    obs, _ = env.reset(seed=0)
    description = env.unwrapped.action_description()
    assert description == describe_actions(mode)
    how = "Answer with the option letter" if env.unwrapped.task.choices else "Answer with the value or text only"
    assert obs["text"].endswith("The image is img_0. " + describe_actions(mode, how))
    listed = re.findall(r"^(\w+)\(image\b", description, re.MULTILINE)
    assert listed == list(TOOLS)
    for tool in TOOLS.values():
        assert tool.signature() in description
    env.close()


def test_vtc_function_call_dict_runs_in_both_modes():
    for mode in ("tool", "code"):
        env = gym.make("VTCBench-v0", mode=mode)
        env.reset(seed=0)
        _, _, _, _, info = env.step({"name": "colorspace", "arguments": {"image": "img_0", "target": "gray"}})
        assert info.get("action_error") is None and info["tool_result"] == env.unwrapped.episode.results[0].numbers
        _, _, _, _, info = env.step({"name": "colorspace", "arguments": {"image": "img_0", "shade": "gray"}})
        assert "unknown parameter" in info["action_error"]
        env.close()


# ---------------------------------------------------------------------------------------------- MMToolSandbox
@pytest.fixture(scope="module")
def sandbox_tool_env():
    env = gym.make("MMToolSandbox-v0", mode="tool")
    yield env
    env.close()


def test_toolsandbox_tool_specs_follow_the_working_set(sandbox_tool_env):
    env = sandbox_tool_env
    obs, _ = env.reset(options={"task_id": "contacts_business_card"})
    unwrapped = env.unwrapped
    specs = unwrapped.tool_specs()
    assert [s["function"]["name"] for s in specs] == ["search_tools", "execute_code"]
    for spec, raw in zip(specs, unwrapped.callable_tool_specs()):
        assert check_function_spec(spec) == raw["parameters"] and spec["function"]["description"] == raw["description"]
    description = unwrapped.action_description()
    assert obs["text"].startswith(description + "\nCurrent device time:")
    assert description.startswith(MODE_GRAMMARS["tool"])
    env.step({"name": "search_tools", "arguments": {"query": "create contact"}})
    names = [s["function"]["name"] for s in unwrapped.tool_specs()]
    assert len(names) > 2 and names == [s["name"] for s in unwrapped.callable_tool_specs()]
    grown = unwrapped.action_description()
    assert all(f"- {name}(" in grown for name in names)  # the description names every callable tool
    _, _, _, _, info = env.step({"name": "search_tools", "arguments": {"query": "contact", "colour": "red"}})
    assert "unknown parameter" in info["action_error"]


@pytest.mark.parametrize("mode", ["code", "tool", "ui"])
def test_toolsandbox_reset_text_starts_with_the_mode_description(mode):
    env = gym.make("MMToolSandbox-v0", mode=mode)
    obs, _ = env.reset(seed=0)
    description = env.unwrapped.action_description()
    assert obs["text"].startswith(description) and description.startswith(MODE_GRAMMARS[mode])
    listed = re.findall(r"^- (\w+)\(", description, re.MULTILINE)
    assert listed == [s["function"]["name"] for s in env.unwrapped.tool_specs()]
    env.close()


@pytest.mark.parametrize("toolset", ["full", "compact"])
def test_toolsandbox_schemas_accept_what_bind_accepts(toolset):
    from mmenvs.toolsandbox.catalog import toolset_tools
    from mmenvs.toolsandbox.meta import EXECUTE_TOOL, SEARCH_TOOL
    from mmenvs.toolsandbox.world import ToolError as WorldToolError

    tools = {**toolset_tools(toolset), "search_tools": SEARCH_TOOL, "execute_code": EXECUTE_TOOL}
    for name, tool in tools.items():
        parameters = check_function_spec(function_spec(name, tool.description, tool.schema()))
        base = required_sample(parameters)
        for param, schema in parameters["properties"].items():
            arguments = {**base, param: sample(schema)}
            VALIDATOR(parameters).validate(arguments)
            assert set(tool.bind(arguments)) == set(arguments), (name, param)
        with pytest.raises(WorldToolError, match="unknown parameter"):
            tool.bind({**base, "not_a_parameter": 1})
        assert_schema_refuses(parameters, {**base, "not_a_parameter": 1})


# ---------------------------------------------------------------------------------------------- DebugEcho
def test_debug_echo_specs_match_its_parser():
    env = DebugEchoEnv()
    env.reset(seed=0)
    specs = env.tool_specs()
    assert [s["function"]["name"] for s in specs] == list(ECHO_ACTIONS)
    for spec in specs:
        parameters = check_function_spec(spec)
        arguments = required_sample(parameters)
        env.reset(seed=0)
        _, _, terminated, _, info = env.step({"name": spec["function"]["name"], "arguments": arguments})
        assert info.get("action_error") is None
        assert terminated == (spec["function"]["name"] != "say")
        env.reset(seed=0)
        _, _, _, _, info = env.step({"name": spec["function"]["name"], "arguments": {**arguments, "extra": 1}})
        assert "unknown parameter" in info["action_error"]
        assert_schema_refuses(parameters, {**arguments, "extra": 1})
    description = env.action_description()
    for decl, text in ECHO_ACTIONS.values():
        assert text in description and decl.signature() in description
    for text, accepted in (("SAY hi", True), ("<answer>x</answer>", True), ("FAIL", True), ("SHOUT hi", False)):
        env.reset(seed=0)
        _, _, _, _, info = env.step(text)
        assert (info.get("action_error") is None) == accepted
        assert (text.split()[0].split(">")[0] + (">" if text.startswith("<") else "") in description) == accepted
    env.close()


# ---------------------------------------------------------------------------------------------- MacAgent
SCREEN = (1280, 800)


class RecordingBackend:
    """Records what the shim sends to the desktop (every backend method call, in order)."""

    screen_size = SCREEN
    simulated_clock = True

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        return lambda *args: self.events.append((name, *args))


def events_of(action: str | dict[str, Any]) -> list[tuple[Any, ...]]:
    """The input events ``action`` sends, through the parser and the env's straight-line fast path."""
    parsed = parse_action(action)
    if isinstance(action, str) and not action.startswith("```"):
        parsed = parse_action(f"```python\nimport pyautogui\n{action}\n```")
    assert parsed.kind == "python", parsed
    calls = straight_line_calls(parsed.code)
    assert calls is not None, parsed.code
    backend = RecordingBackend()
    shim = PyAutoGUIShim(backend)
    shim.begin_action()
    run_calls(shim, calls)
    return backend.events


def computer_use(**arguments: Any) -> dict[str, Any]:
    return {"name": "computer_use", "arguments": arguments}


EQUIVALENT = [
    # OpenAI computer-use actions
    ({"type": "click", "x": 10, "y": 20}, "pyautogui.click(10, 20)"),
    ({"type": "click", "x": 10, "y": 20, "button": "right"}, "pyautogui.rightClick(10, 20)"),
    ({"type": "click", "x": 10, "y": 20, "button": "wheel"}, "pyautogui.middleClick(10, 20)"),
    ({"type": "double_click", "x": 10, "y": 20}, "pyautogui.doubleClick(10, 20)"),
    ({"type": "move", "x": 5.0, "y": 6}, "pyautogui.moveTo(5, 6)"),
    ({"type": "type", "text": "héllo\nworld"}, "pyautogui.write('héllo\\nworld')"),
    ({"type": "keypress", "keys": ["CTRL", "C"]}, "pyautogui.hotkey('ctrl', 'c')"),
    ({"type": "keypress", "keys": ["ENTER"]}, "pyautogui.press('enter')"),
    ({"type": "keypress", "keys": ["ARROWLEFT"]}, "pyautogui.press('left')"),
    ({"type": "keypress", "keys": ["CMD", "SHIFT", "N"]}, "pyautogui.hotkey('command', 'shift', 'n')"),
    ({"type": "scroll", "x": 10, "y": 20, "scroll_x": 0, "scroll_y": 300}, "pyautogui.scroll(-3, 10, 20)"),
    ({"type": "scroll", "x": 10, "y": 20, "scroll_x": 0, "scroll_y": -30}, "pyautogui.scroll(1, 10, 20)"),
    ({"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 30, "y": 40}]}, "pyautogui.moveTo(1, 2)\npyautogui.dragTo(30, 40)"),
    ({"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3, "y": 4}, {"x": 5, "y": 6}]},
     "pyautogui.moveTo(1, 2)\npyautogui.mouseDown()\npyautogui.moveTo(3, 4)\npyautogui.moveTo(5, 6)\npyautogui.mouseUp()"),
    ({"type": "computer_call", "call_id": "call_1", "action": {"type": "click", "x": 7, "y": 8}}, "pyautogui.click(7, 8)"),
    # Anthropic computer_20250124 actions
    ({"action": "left_click", "coordinate": [10, 20]}, "pyautogui.click(10, 20)"),
    ({"action": "left_click"}, "pyautogui.click()"),
    ({"action": "left_click", "coordinate": [10, 20], "text": "shift"},
     "pyautogui.keyDown('shift')\npyautogui.click(10, 20)\npyautogui.keyUp('shift')"),
    ({"action": "right_click", "coordinate": [10, 20]}, "pyautogui.rightClick(10, 20)"),
    ({"action": "middle_click", "coordinate": [10, 20]}, "pyautogui.middleClick(10, 20)"),
    ({"action": "double_click", "coordinate": [10, 20]}, "pyautogui.doubleClick(10, 20)"),
    ({"action": "triple_click", "coordinate": [10, 20]}, "pyautogui.tripleClick(10, 20)"),
    ({"action": "mouse_move", "coordinate": [10, 20]}, "pyautogui.moveTo(10, 20)"),
    ({"action": "left_click_drag", "start_coordinate": [1, 2], "coordinate": [30, 40]}, "pyautogui.moveTo(1, 2)\npyautogui.dragTo(30, 40)"),
    ({"action": "left_mouse_down"}, "pyautogui.mouseDown()"),
    ({"action": "left_mouse_up"}, "pyautogui.mouseUp()"),
    ({"action": "key", "text": "ctrl+s"}, "pyautogui.hotkey('ctrl', 's')"),
    ({"action": "key", "text": "Return"}, "pyautogui.press('enter')"),
    ({"action": "key", "text": "super+shift+n Escape"}, "pyautogui.hotkey('command', 'shift', 'n')\npyautogui.press('esc')"),
    ({"action": "key", "text": "Delete"}, "pyautogui.press('del')"),
    ({"action": "hold_key", "text": "shift", "duration": 1.5}, "pyautogui.keyDown('shift')\npyautogui.sleep(1.5)\npyautogui.keyUp('shift')"),
    ({"action": "type", "text": "Hello"}, "pyautogui.write('Hello')"),
    ({"action": "scroll", "coordinate": [10, 20], "scroll_direction": "down", "scroll_amount": 3}, "pyautogui.scroll(-3, 10, 20)"),
    ({"action": "scroll", "scroll_direction": "up", "scroll_amount": 2, "text": "cmd"},
     "pyautogui.keyDown('command')\npyautogui.scroll(2)\npyautogui.keyUp('command')"),
    ({"action": "wait", "duration": 2}, "pyautogui.sleep(2)"),
    ({"type": "tool_use", "id": "toolu_1", "name": "computer", "input": {"action": "left_click", "coordinate": [7, 8]}},
     "pyautogui.click(7, 8)"),
    # the computer_use tool (Prompt 1b)
    (computer_use(action="left_click", coordinate=[10, 20]), "pyautogui.click(10, 20)"),
    (computer_use(action="right_click"), "pyautogui.rightClick()"),
    (computer_use(action="double_click", coordinate=[10, 20]), "pyautogui.doubleClick(10, 20)"),
    (computer_use(action="triple_click", coordinate=[10, 20]), "pyautogui.tripleClick(10, 20)"),
    (computer_use(action="middle_click", coordinate=[10, 20]), "pyautogui.middleClick(10, 20)"),
    (computer_use(action="mouse_move", coordinate=[10, 20]), "pyautogui.moveTo(10, 20)"),
    (computer_use(action="left_click_drag", coordinate=[30, 40]), "pyautogui.dragTo(30, 40)"),
    (computer_use(action="key", keys=["command", "c"]), "pyautogui.hotkey('command', 'c')"),
    (computer_use(action="key", keys=["enter"]), "pyautogui.press('enter')"),
    (computer_use(action="type", text="hi"), "pyautogui.write('hi')"),
    (computer_use(action="scroll", pixels=-4, coordinate=[10, 20]), "pyautogui.scroll(-4, 10, 20)"),
    (computer_use(action="wait", time=3), "pyautogui.sleep(3)"),
    ({"function": {"name": "computer_use", "arguments": '{"action": "left_click", "coordinate": [1, 2]}'}}, "pyautogui.click(1, 2)"),
]


@pytest.mark.parametrize("foreign, pyautogui_code", EQUIVALENT, ids=[str(e[0])[:60] for e in EQUIVALENT])
def test_foreign_dicts_send_exactly_the_events_of_their_pyautogui_calls(foreign, pyautogui_code):
    assert events_of(foreign) == events_of(pyautogui_code)


@pytest.mark.parametrize("foreign, word", [
    ({"type": "wait"}, "WAIT"), ({"action": "wait"}, "WAIT"), (computer_use(action="wait"), "WAIT"),
    (computer_use(action="terminate", status="success"), "DONE"), (computer_use(action="terminate", status="failure"), "FAIL"),
])
def test_foreign_waits_and_ends_are_control_words(foreign, word):
    parsed = parse_action(foreign)
    assert parsed.kind == "control" and parsed.word == word


def test_screenshot_and_cursor_position_send_no_event():
    for action in ({"type": "screenshot"}, {"action": "screenshot"}, {"action": "cursor_position"}):
        assert events_of(action) == []


@pytest.mark.parametrize("foreign, kind, fragment", [
    ({"type": "click", "x": 1, "y": 2, "button": "back"}, "unsupported", "'back' button"),
    ({"type": "scroll", "x": 1, "y": 2, "scroll_x": 100, "scroll_y": 0}, "unsupported", "horizontal"),
    ({"type": "click", "x": 1}, "bad_parameters", "needs y"),
    ({"type": "move", "x": 1, "y": 2, "z": 3}, "bad_parameters", "unexpected: z"),
    ({"type": "drag", "path": [{"x": 1, "y": 2}, {"x": 3}]}, "bad_parameters", "path[1]"),
    ({"action": "scroll", "scroll_direction": "left", "scroll_amount": 2}, "unsupported", "horizontal"),
    ({"action": "left_click_drag", "start_coordinate": [1, 2]}, "bad_parameters", "needs coordinate"),
    ({"action": "key", "text": "ctrl+"}, "bad_parameters", "key combination"),
    (computer_use(action="hscroll", pixels=3), "unknown_verb", "hscroll"),
    ({"type": "computer_call", "action": {"type": "triple_click", "x": 1, "y": 2}}, "unknown_verb", "'triple_click'"),
    ({"type": "tool_use", "name": "computer", "input": {"action": "zoom"}}, "unknown_verb", "'zoom'"),
    (computer_use(action="answer", text="42"), "unknown_verb", "answer"),
    (computer_use(action="left_click", text="x"), "bad_parameters", "unexpected: text"),
    (computer_use(action="left_click", coordinate=[1]), "bad_parameter", "exactly 2 items"),
    (computer_use(action="terminate", status="maybe"), "bad_parameter", "success, failure"),
    ({"name": "bash", "arguments": {"command": "ls", "cwd": "/"}}, "unknown_parameter", "'cwd'"),
    ({"name": "python", "arguments": {"code": "1"}}, "unknown_tool", "computer_use, bash, applescript"),
])
def test_foreign_dicts_the_desktop_cannot_do_are_refused_clearly(foreign, kind, fragment):
    with pytest.raises(ActionError) as caught:
        parse_action(foreign)
    assert caught.value.kind == kind and fragment in str(caught.value)


def test_computer_13_dicts_are_still_read_as_before():
    assert parse_action({"action": "right_click", "x": 1, "y": 2}).verb == "RIGHT_CLICK"
    assert parse_action({"action_type": "CLICK", "x": 1, "y": 2}).params == {"x": 1, "y": 2}


@pytest.mark.parametrize("framework", [*action_specs.FRAMEWORKS, None])
def test_macagent_tool_schemas_are_valid_and_match_the_parser(framework):
    specs = action_specs.tool_specs(framework, SCREEN)
    names = [s["function"]["name"] for s in specs]
    assert names == (["computer_use", "bash", "applescript"] if framework in ("hybrid", None) else ["computer_use"])
    for spec in specs:
        parameters = check_function_spec(spec)
        name = spec["function"]["name"]
        if name != "computer_use":
            arguments = required_sample(parameters)
            assert parse_action({"name": name, "arguments": arguments}).kind == name
            with pytest.raises(ActionError):
                parse_action({"name": name, "arguments": {**arguments, "extra": 1}})
            assert_schema_refuses(parameters, {**arguments, "extra": 1})
            continue
        assert parameters["properties"]["action"]["enum"] == list(action_specs.COMPUTER_USE_ACTIONS)
        assert set(parameters["properties"]) == {"action", *action_specs.COMPUTER_USE_PARAMS}
        for verb_name, verb in action_specs.COMPUTER_USE_ACTIONS.items():
            base = {"action": verb_name, **{p: sample(parameters["properties"][p]) for p in verb.required}}
            for optional in (None, *verb.optional):  # every parameter the verb declares is accepted
                arguments = dict(base) if optional is None else {**base, optional: sample(parameters["properties"][optional])}
                VALIDATOR(parameters).validate(arguments)
                parsed = parse_action(computer_use(**arguments))
                if parsed.kind == "python":
                    events_of(computer_use(**arguments))  # and the desktop takes the events
            for other in set(action_specs.COMPUTER_USE_PARAMS) - set(verb.names):  # a parameter of another verb is not
                with pytest.raises(ActionError, match="unexpected"):
                    parse_action(computer_use(**base, **{other: sample(parameters["properties"][other])}))
            for missing in verb.required:
                with pytest.raises(ActionError, match="needs"):
                    parse_action(computer_use(**{k: v for k, v in base.items() if k != missing}))
        with pytest.raises(ActionError):
            parse_action(computer_use(action="left_click", undeclared=1))
        assert_schema_refuses(parameters, {"action": "left_click", "undeclared": 1})
        assert_schema_refuses(parameters, {"action": "hscroll"})


@pytest.fixture(scope="module")
def mac_env():
    env = gym.make("MacAgent-v0")
    env.reset(seed=0)
    yield env
    env.close()


def _pyautogui_names(description: str) -> set[str]:
    return set(re.findall(r"pyautogui\.(\w+)\(", description))


@pytest.mark.parametrize("framework", [*action_specs.FRAMEWORKS, None])
def test_macagent_description_names_every_accepted_verb_and_nothing_refused(mac_env, framework):
    description = mac_env.unwrapped.action_description(framework=framework)
    skills = mac_env.unwrapped.backend.skills()  # the sim's skill library: listed for "hybrid" only
    assert description == action_specs.describe(framework, PyAutoGUIShim, SCREEN, skills)
    assert ("<available_skills>" in description) == (framework == "hybrid") and len(skills) >= 9
    assert "1280x800" in description
    refused = ("locateCenterOnScreen", "screenshot", "hscroll", "answer(", "typewriter")
    for name in refused:
        assert name not in description, name
    if framework == "computer_use":
        listed = re.findall(r"^- (\w+)\(", description, re.MULTILINE)
        assert listed == list(action_specs.COMPUTER_USE_ACTIONS)
        assert _pyautogui_names(description) == set()
        return
    assert _pyautogui_names(description) == set(PyAutoGUIShim.FUNCTIONS)
    for word in ("DONE", "FAIL", "WAIT"):
        assert f"- {word}:" in description and parse_action(word).word == word
    fences = {"bash", "applescript"}
    for fence in fences:
        assert (f"```{fence}" in description) == (framework != "pyautogui")
        assert parse_action(f"```{fence}\nx\n```").kind == fence
    if framework is None:
        listed = re.findall(r"^- (\w+)\(", description, re.MULTILINE)
        assert listed == list(VERB_PARAMS)
    else:
        assert "action_type" not in description
    with pytest.raises(ValueError, match="framework must be one of"):
        mac_env.unwrapped.action_description(framework="voice")


def test_a_pyautogui_function_the_description_leaves_out_is_refused(mac_env):
    mac_env.reset(seed=0)
    _, _, _, _, info = mac_env.step("```python\nimport pyautogui\npyautogui.screenshot()\n```")
    assert "screenshot" in info["action_error"]


def test_every_pyautogui_function_the_description_names_runs_on_the_shim():
    backend = RecordingBackend()
    shim = PyAutoGUIShim(backend)
    for name in PyAutoGUIShim.FUNCTIONS:
        calls = straight_line_calls(f"import pyautogui\npyautogui.{name}()")
        assert calls is not None and calls[0].name == name  # the fast path knows it; the shim has it
        assert callable(getattr(shim, name))


def test_macagent_env_runs_foreign_dicts_like_pyautogui(mac_env):
    env = mac_env
    forms = [{"type": "click", "x": 640, "y": 790}, {"action": "left_click", "coordinate": [640, 790]},
             computer_use(action="left_click", coordinate=[640, 790]),
             {"name": "computer_use", "arguments": {"action": "left_click", "coordinate": [640, 790]}}]
    frames = []
    for action in ["```python\nimport pyautogui\npyautogui.click(640, 790)\n```", *forms]:
        env.reset(seed=0)
        obs, _, _, _, info = env.step(action)
        assert info.get("action_error") is None and obs["text"] == "OK (1 input event(s))."
        frames.append(np.asarray(env.unwrapped.frame()))
    assert all(np.array_equal(frames[0], frame) for frame in frames[1:])
    env.reset(seed=0)
    obs, _, _, _, info = env.step({"name": "bash", "arguments": {"command": "echo hi"}})
    assert info.get("action_error") is None and "hi" in obs["text"]
    _, _, terminated, _, info = env.step(computer_use(action="terminate", status="success"))
    assert terminated
