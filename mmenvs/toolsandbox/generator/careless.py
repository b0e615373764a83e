"""Scripted careless agents: the baselines that show a generated challenge matters.

Each replays one of the scenario's ``metadata.counterfactuals`` in tool mode (searching for a tool
before its first use, as any agent must):

* ``"ignore_interjections"`` waits for the last round, then acts on the user's first request (a goal
  change) or on the user's wrong detail (an error correction), and never fixes anything after the
  user's correction or change of plan;
* ``"premature"`` acts on whatever images came with the first message, before the rest arrive.

Otherwise it just acknowledges the user. Its entity F1 should be clearly below the oracle's 1.0.
"""

from __future__ import annotations

import json
import re
from typing import Any

KINDS = ("ignore_interjections", "premature")


class CarelessAgent:
    """A tool-mode agent replaying a careless counterfactual of the scenario (see the module docstring)."""

    def __init__(self, kind: str = "premature") -> None:
        if kind not in KINDS:
            raise ValueError(f"unknown careless agent kind {kind!r}; valid kinds: {', '.join(KINDS)}")
        self.kind = kind
        self.env: Any = None
        self._pending: list[str] = []
        self._acted = False

    def bind(self, env: Any) -> None:
        """Attach the (unwrapped) MMToolSandbox env in tool mode."""
        if getattr(env, "mode", None) != "tool":
            raise ValueError("CarelessAgent plays in tool mode: make the env with mode='tool'")
        self.env = env

    def reset(self, info: dict[str, Any] | None = None) -> None:
        self._pending = []
        self._acted = False

    def _plan(self) -> list[str]:
        steps = self.env.task.metadata.get("counterfactuals", {}).get(self.kind)
        if steps is None:  # this scenario has no such careless variant: behave like the oracle would
            steps = self.env.task.reference_solution
        actions: list[str] = []
        known: set[str] = set(self.env.search.working)
        for step in steps:
            if "say" in step:
                actions.append(step["say"])
                break  # one reply: the careless agent stops after its single action turn
            name = step["tool"]
            if name not in known:
                query = " ".join(re.findall(r"[a-z0-9]+", name.lower()))
                ranked = [n for _, n in self.env.search.rank(query)]
                actions.append(json.dumps({"name": "search_tools", "arguments": {"query": query, "page": ranked.index(name) // 5}}))
                known.add(name)
            actions.append(json.dumps({"name": name, "arguments": step.get("arguments", {})}))
        return actions

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str:
        if self._pending:
            return self._pending.pop(0)
        if not self._acted:
            state = self.env.user.state()
            ready = self.kind == "premature" or state.get("round") == state.get("rounds")
            if ready:
                self._acted = True
                self._pending = self._plan()
                return self._pending.pop(0)
        return "Okay, noted."
