"""The two meta tools the environment itself runs: ``search_tools`` (tool discovery) and ``execute_code``.

Their functions only carry the signature and docstring (hence the JSON schema an agent sees); the
env binds the calls to its ``ToolSearch`` and its sandbox.
"""

from __future__ import annotations

from typing import Any

from .tools import Tool, make_tool
from .world import World


def search_tools(world: World, query: str, page: int = 0, page_size: int = 5) -> dict[str, Any]:
    """Find tools by keywords; the tools found become callable (your working set holds the 100 most recently used).

    Scores each query word: +2 when it is in a tool's name, +1.5 in its app, +1 in its description.

    Args:
        query: keywords, e.g. "send message" or "calendar create event"
        page: result page (5 results a page by default)
        page_size: results per page (1-20)
    """
    raise RuntimeError("search_tools is run by the environment")  # the env binds it to its ToolSearch


def execute_code(world: World, code: str) -> dict[str, Any]:
    """Run Python code in the sandboxed interpreter, where every tool in your working set is a function.

    Variables persist between calls; print what you want to see.

    Args:
        code: Python source to run
    """
    raise RuntimeError("execute_code is run by the environment")


SEARCH_TOOL: Tool = make_tool(search_tools, "meta", kind="read")
EXECUTE_TOOL: Tool = make_tool(execute_code, "meta")
