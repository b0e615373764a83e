"""Layer 1 (AST policy) on its own: what it allows, what it rejects and how it says so."""

from __future__ import annotations

import pytest

from mmenvs.sandbox.policy import DEFAULT_ALLOWED_IMPORTS, Policy


@pytest.fixture
def policy() -> Policy:
    return Policy(DEFAULT_ALLOWED_IMPORTS, extra_modules=["pyautogui"], tool_names=["load_image", "pyautogui.click"])


@pytest.mark.parametrize("code", [
    "import numpy as np\nnp.zeros(3).sum()",
    "from PIL import Image\nimport cv2\nimport matplotlib.pyplot as plt",
    "import numpy.linalg\nfrom collections import Counter",
    "import pyautogui\npyautogui.click(1, 2)",
    "class A:\n    def __init__(self):\n        self.x = 1\nA().x",
    "if __name__ == '__main__':\n    print('main')",
    "'{name} is {age}'.format(name='a', age=3)",
    "f'{1 + 1}'",
    "def gen():\n    yield 1\nlist(gen())",
    "x = [i ** 2 for i in range(10)]",
])
def test_ordinary_code_passes(policy: Policy, code: str) -> None:
    assert policy.check(code) == []


@pytest.mark.parametrize("code,needle,line", [
    ("x = 1\nimport os", "`import os` is not allowed", 2),
    ("import os.path", "`import os.path` is not allowed", 1),
    ("from . import x", "relative imports are not allowed", 1),
    ("from subprocess import run", "`from subprocess import ...` is not allowed", 1),
    ("f = open", "`open` is blocked: there is no file access here", 1),
    ("getattr(x, name)", "`getattr` is blocked: dynamic attribute access", 1),
    ("x.__dict__", "the attribute `.__dict__` is blocked", 1),
    ("type(x).mro()", "the attribute `.mro` is blocked", 1),
    ("tb.tb_frame.f_globals", "the attribute `.tb_frame` is blocked", 1),
    ("co = f.__code__", "the attribute `.__code__` is blocked", 1),
    ("__spec__", "`__spec__` is blocked", 1),
    ("__loader__", "`__loader__` is blocked", 1),
    ("__class__", "the name `__class__` is blocked", 1),
    ("s = 'x__globals__y'", "strings naming dunder attributes (`__globals__`)", 1),
    ("memoryview(b'a')", "`memoryview` is blocked", 1),
])
def test_violations_are_reported_with_line_and_advice(policy: Policy, code: str, needle: str, line: int) -> None:
    found = policy.check(code)
    assert found, code
    assert any(needle in v.message and v.line == line for v in found), [str(v) for v in found]


def test_message_lists_allowed_modules_and_tools(policy: Policy) -> None:
    text = policy.format(policy.check("import socket\nimport ctypes"))
    assert text.splitlines()[0] == "PolicyError: the code was not run because it breaks the sandbox rules:"
    assert "  - line 1: `import socket` is not allowed" in text
    assert "  - line 2: `import ctypes` is not allowed" in text
    assert "Allowed imports: PIL, abc," in text
    assert "through the tools: load_image, pyautogui.click." in text


def test_custom_allow_list_is_respected() -> None:
    p = Policy(["math"])
    assert p.check("import math") == []
    assert p.check("import numpy")[0].message.startswith("`import numpy` is not allowed")


def test_many_violations_are_summarised(policy: Policy) -> None:
    code = "\n".join(f"import os{i}" for i in range(15))
    text = policy.format(policy.check(code))
    assert text.count("\n  - line") == 10 and text.endswith("... and 5 more")


def test_oversized_and_pathological_code_does_not_break_the_parent(policy: Policy) -> None:
    big = policy.check("x = 1\n" * 30_000)
    assert big and "the limit is 100000" in big[0].message
    # Too many parentheses is a SyntaxError: left to the worker, which reports it.
    assert policy.check("(" * 5000 + ")" * 5000) == []
    # A 20,000-term sum makes ast.parse itself recurse too deeply: a clear message, no crash.
    deep = policy.check("x = " + " + ".join(["1"] * 20_000))
    assert len(deep) == 1 and "cannot be parsed (RecursionError)" in deep[0].message
    assert policy.check("x = " + " + ".join(["1"] * 2_000)) == []  # walked without recursion
    assert policy.check("x = (") == []  # syntax errors are left to the worker's clear message


def test_syntax_errors_are_not_policy_errors(policy: Policy) -> None:
    assert policy.check("def f(:\n  pass") == []


def test_tools_named_like_blocked_builtins_may_be_called() -> None:
    p = Policy(tool_names=["open", "input"])
    assert p.check("open('Notes')\ninput('hello')") == []
    assert "`eval` is blocked" in p.check("eval('1')")[0].message
