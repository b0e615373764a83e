import json

import pytest

from mmenvs.core import ActionError, ToolCall, code_blocks, control_word, extract_answer, extract_code, parse_tool_call

CALL = ToolCall("crop", {"x": 1, "y": 2})


@pytest.mark.parametrize("text", [
    '{"name": "crop", "arguments": {"x": 1, "y": 2}}',
    'Let me crop it.\n{"name": "crop", "arguments": {"x": 1, "y": 2}}\nThat should work.',
    '<tool_call>{"name": "crop", "arguments": {"x": 1, "y": 2}}</tool_call>',
    '<tool_call>\n{"name": "crop", "arguments": {"x": 1, "y": 2}}',
    '[{"name": "crop", "arguments": {"x": 1, "y": 2}}]',
    '```json\n{"name": "crop", "parameters": {"x": 1, "y": 2}}\n```',
    '{"name": "crop", "arguments": "{\\"x\\": 1, \\"y\\": 2}"}',
    '{"type": "function", "function": {"name": "crop", "arguments": "{\\"x\\": 1, \\"y\\": 2}"}}',
    '{"tool": "crop", "param": {"x": 1, "y": 2}}',
])
def test_tool_call_variants(text):
    assert parse_tool_call(text) == CALL


def test_tool_call_from_dict_and_empty_arguments():
    assert parse_tool_call({"name": "crop", "arguments": {"x": 1, "y": 2}}) == CALL
    assert parse_tool_call('{"name": "list_tools"}') == ToolCall("list_tools", {})


@pytest.mark.parametrize("text, kind", [
    ("just prose, no call", "no_tool_call"),
    ('{"name": "crop", "arguments": {"x": 1,}', "invalid_json"),
    ('[{"name": "a"}, {"name": "b"}]', "multiple_tool_calls"),
    ('{"arguments": {"x": 1}}', "missing_tool_name"),
    ('{"name": "crop", "arguments": [1, 2]}', "bad_arguments"),
    ('{"name": "crop", "arguments": "{not json"}', "invalid_arguments_json"),
    ("", "no_tool_call"),
    ("[" * 200_000, "invalid_json"),
])
def test_tool_call_failures_have_distinct_kinds(text, kind):
    with pytest.raises(ActionError) as caught:
        parse_tool_call(text)
    assert caught.value.kind == kind
    assert len(str(caught.value)) > 20  # a readable sentence, not a bare code


def test_code_blocks_and_language_aliases():
    text = "Plan:\n```py\nx = 1\n```\nthen\n```sh\nls -la\n```"
    assert [b.language for b in code_blocks(text)] == ["python", "bash"]
    assert extract_code(text, ("python",)).code == "x = 1\n"
    assert extract_code(text, ("bash",)).code == "ls -la\n"
    assert extract_code("no code here") is None
    assert extract_code("```\nprint(2)\n```").code == "print(2)\n"


@pytest.mark.parametrize("text, kind", [
    ("```python\nprint(1)\n", "unclosed_code_block"),
    ("```ruby\nputs 1\n```", "wrong_code_language"),
    ("```python\na=1\n```\n```python\nb=2\n```", "multiple_code_blocks"),
])
def test_code_failures(text, kind):
    with pytest.raises(ActionError) as caught:
        extract_code(text, ("python",))
    assert caught.value.kind == kind


def test_answer_and_control_words():
    assert extract_answer("I think <answer> C </answer>") == "C"
    assert extract_answer("<answer>A</answer> no wait <ANSWER>B</ANSWER>") == "B"
    assert extract_answer("no tag") is None
    with pytest.raises(ActionError) as caught:
        extract_answer("<answer>C")
    assert caught.value.kind == "unclosed_answer"
    assert control_word("DONE") == "DONE"
    assert control_word("  fail. ") == "FAIL"
    assert control_word("```\nWAIT\n```") == "WAIT"
    assert control_word("I am DONE now") is None


def test_argument_sizes_are_measured_without_building_json_and_refused_by_name():
    from mmenvs.core.actions import check_argument_sizes, clip_for_log, json_size
    from mmenvs.core.budget import BudgetExceeded

    value = {"a": "xyz" * 100, "b": [1, 2.5, None]}
    exact = len(json.dumps(value, separators=(",", ":")))
    assert exact <= json_size(value) <= exact + 40  # an estimate: strings exact, numbers by a fixed width
    many = ["x" * 1000] * 1_000_000  # a gigabyte as JSON: measuring stops at the limit
    assert json_size(many, 10_000) > 10_000
    loop: list = []
    loop.append(loop)
    assert json_size(loop, 50) > 50
    with pytest.raises(BudgetExceeded, match=r"crop: the argument 'label' .*tool_argument_chars=100") as caught:
        parse_tool_call({"name": "crop", "arguments": {"label": "x" * 500}}, max_argument_chars=100)
    assert caught.value.limit == "tool_argument_chars" and caught.value.kind == "budget_exceeded"
    check_argument_sizes("crop", {"label": "x" * 90}, 100)  # under the limit: no error
    clipped = clip_for_log({"code": "y" * 10_000, "items": list(range(500)), "big": 10**40})
    assert clipped["code"].startswith("y" * 2000) and "8,000 more characters not logged" in clipped["code"]
    assert len(clipped["items"]) == 65 and "436 more items" in clipped["items"][-1] and clipped["big"].startswith("[an integer")
