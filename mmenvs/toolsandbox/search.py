"""Tool discovery: keyword search over the toolset and the agent's bounded working set.

Scoring (as in the public MM-ToolSandBox code): for every word of the query, +2.0 when it occurs in
the tool's name, +1.5 in its app name, +1.0 in its description. Results come 5 to a page, best
first (ties by name). Every tool a search returns joins the working set; calling a tool refreshes
it. The working set holds at most ``capacity`` tools: the least recently used non-pinned tool
leaves when a new one joins. Pinned tools (``search_tools`` itself, ``execute_code``) never leave.
"""

from __future__ import annotations

import re
from collections import OrderedDict
from typing import Any, Iterable

from .tools import Tool
from .world import ToolError

_WORD = re.compile(r"[a-z0-9]+")
NAME_WEIGHT, APP_WEIGHT, DESCRIPTION_WEIGHT = 2.0, 1.5, 1.0


#: Longest search_tools query: a description of the tool wanted, not a document.
MAX_QUERY_CHARS = 2_000


class ToolSearch:
    """Search index over ``tools`` plus the working set of one episode."""

    def __init__(self, tools: dict[str, Tool], pinned: Iterable[str] = (), capacity: int = 100):
        if capacity < 1:
            raise ValueError(f"capacity must be positive, got {capacity}")
        self.tools = tools
        self.capacity = capacity
        self.pinned = tuple(dict.fromkeys(pinned))
        self._index = {name: (name.lower(), t.app.lower(), t.description.lower()) for name, t in tools.items()}
        self.working: OrderedDict[str, None] = OrderedDict()
        self.surfaced: list[str] = []  # every tool a search returned, in first-seen order
        self.invoked: list[str] = []  # every tool called successfully or not, in first-call order
        self.searches = 0
        self.reset()

    def reset(self) -> None:
        self.working.clear()
        for name in self.pinned:
            self.working[name] = None
        self.surfaced.clear()
        self.invoked.clear()
        self.searches = 0

    def rank(self, query: str) -> list[tuple[float, str]]:
        """``[(score, name)]`` for every tool with a positive score, best first."""
        words = _WORD.findall(query.lower())
        ranked = []
        for name, (tool_name, app, description) in self._index.items():
            score = 0.0
            for w in words:
                score += NAME_WEIGHT * (w in tool_name) + APP_WEIGHT * (w in app) + DESCRIPTION_WEIGHT * (w in description)
            if score > 0:
                ranked.append((score, name))
        ranked.sort(key=lambda item: (-item[0], item[1]))
        return ranked

    def search(self, query: str, page: int = 0, page_size: int = 5) -> dict[str, Any]:
        """One page of results; each result joins the working set."""
        if not isinstance(query, str) or not _WORD.search(query[:MAX_QUERY_CHARS].lower()):
            raise ToolError("search_tools: query must contain at least one word, e.g. 'send message'")
        if len(query) > MAX_QUERY_CHARS:  # ranking costs time in the query's length (900 KB took > 10 s on the host)
            raise ToolError(f"search_tools: the query may hold at most {MAX_QUERY_CHARS} characters (MAX_QUERY_CHARS), got {len(query):,}")
        if page < 0 or not 1 <= page_size <= 20:
            raise ToolError(f"search_tools: need page ≥ 0 and 1 ≤ page_size ≤ 20, got page={page}, page_size={page_size}")
        self.searches += 1
        ranked = self.rank(query)
        chosen = ranked[page * page_size:(page + 1) * page_size]
        results = []
        for score, name in chosen:
            tool = self.tools[name]
            self._admit(name)
            if name not in self.surfaced:
                self.surfaced.append(name)
            results.append({"name": name, "app": tool.app, "score": score, "description": tool.description, "parameters": tool.schema()})
        pages = (len(ranked) + page_size - 1) // page_size
        return {"query": query, "page": page, "pages": pages, "total": len(ranked), "results": results}

    def _admit(self, name: str) -> None:
        if name in self.working:
            self.working.move_to_end(name)
            return
        self.working[name] = None
        while len(self.working) > self.capacity:
            victim = next((n for n in self.working if n not in self.pinned), None)
            if victim is None:
                break
            del self.working[victim]

    def require(self, name: str) -> Tool:
        """The tool ``name`` if the agent may call it now (it then counts as most recently used)."""
        if name not in self.tools and name not in self.working:
            hint = f"search_tools(query='{' '.join(_WORD.findall(name.lower()))}')"
            raise ToolError(f"there is no tool named {name!r}. Find tools with {hint}.")
        if name not in self.working:
            raise ToolError(f"tool {name!r} is not in your working set (it was never found or was evicted); call search_tools with a query describing it first.")
        self.working.move_to_end(name)
        if name not in self.invoked:
            self.invoked.append(name)
        return self.tools[name]

    def info(self) -> dict[str, Any]:
        return {"tools_surfaced": list(self.surfaced), "tools_invoked": list(self.invoked), "search_calls": self.searches,
                "working_set_size": len(self.working)}
