"""The user simulator: a scripted supervisor that follows the scenario's rounds.

The interface (``UserSimulator``) is what the env talks to; ``ScriptedUser`` is the deterministic
implementation. An LLM-backed user can implement the same two methods (it gets the scenario's
rounds and instructions, never the image content) and plug in through the env's ``user`` kwarg.

Scripted behaviour, for every reply the agent sends to the user:

1. a clarifying question (the reply contains "?") whose text mentions a keyword of one of the
   round's ``answers`` gets that answer; the round does not advance;
2. a reply saying the agent cannot do it ("I can't", "unable to", …) gets a nudge to try again;
   after ``max_failures`` such replies in one round the user ends the conversation;
3. otherwise, the round's pending ``correction`` (a wrong detail fixed) or ``goal_change`` (a
   pivot) is delivered once, in that order;
4. otherwise the next round's query and images are delivered; after the last round the user ends
   the conversation.

The user never describes images: it only sends them (by scenario key) as the script says.

In UI mode a round may carry private decisions (``ui``): when the agent shows a screen, the user
picks among the options the screen shows by the round's criterion and clicks (``interact``).
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .scenario import Round, Scenario
from .ui.decide import Reaction, react

if TYPE_CHECKING:
    from .ui.tools import ScreenView

_GIVE_UP = re.compile(r"\b(i can(?:no|')t|i cannot|i am unable|i'm unable|unable to|i could not|i couldn't)\b", re.IGNORECASE)


@dataclass(frozen=True)
class UserMessage:
    """What the user says: text, images to attach (scenario keys), and whether the conversation ends."""

    text: str
    images: tuple[str, ...] = ()
    end: bool = False
    kind: str = "query"  # query | correction | goal_change | answer | nudge | end


class UserSimulator(ABC):
    """A user the env can converse with."""

    @abstractmethod
    def start(self, scenario: Scenario) -> UserMessage:
        """Begin a conversation: the first message (round 1's query and images)."""

    @abstractmethod
    def reply(self, agent_text: str) -> UserMessage:
        """React to the agent's reply to the user."""

    def state(self) -> dict[str, object]:
        """Facts about the conversation for ``info`` (round index, delivered interjections, …)."""
        return {}

    def interact(self, view: "ScreenView") -> Reaction | None:
        """React to a UI screen the agent showed (UI mode): the arguments of a ``ui_user_interact`` call,
        or a ``Reaction`` with only a note when there is nothing to do. The default user ignores screens."""
        return None


@dataclass
class ScriptedUser(UserSimulator):
    """Deterministic user following a scenario's scripted rounds (see the module docstring)."""

    max_failures: int = 3
    _rounds: list[Round] = field(default_factory=list)
    _index: int = 0
    _delivered: set[str] = field(default_factory=set)
    _failures: int = 0
    _ended: bool = False

    def start(self, scenario: Scenario) -> UserMessage:
        self._rounds = list(scenario.rounds)
        self._index = 0
        self._delivered = set()
        self._failures = 0
        self._ended = False
        first = self._rounds[0]
        return UserMessage(first.query, first.provide, kind="query")

    def reply(self, agent_text: str) -> UserMessage:
        if self._ended:
            return UserMessage("", end=True, kind="end")
        current = self._rounds[self._index]
        lowered = agent_text.lower()
        if "?" in agent_text:
            for answer in current.answers:
                if any(k in lowered for k in answer.keywords):
                    return UserMessage(answer.reply, kind="answer")
        if _GIVE_UP.search(agent_text):
            self._failures += 1
            if self._failures >= self.max_failures:
                return self._end("You could not do it; let's stop here.")
            return UserMessage("Please try again: everything you need is in what I sent you.", kind="nudge")
        for kind in ("correction", "goal_change"):
            interjection = getattr(current, kind)
            if interjection is not None and f"{self._index}:{kind}" not in self._delivered:
                self._delivered.add(f"{self._index}:{kind}")
                return UserMessage(interjection.text, interjection.provide, kind=kind)
        if self._index + 1 >= len(self._rounds):
            return self._end("Thanks, that's everything.")
        self._index += 1
        self._failures = 0
        following = self._rounds[self._index]
        return UserMessage(following.query, following.provide, kind="query")

    def interact(self, view: "ScreenView") -> Reaction | None:
        """Act on a shown screen by the current round's private decisions (``ui`` field; see ``ui/decide.py``)."""
        if self._ended or not self._rounds:
            return Reaction(None, "The conversation is over.")
        decisions = self._rounds[self._index].ui
        if not decisions:
            return Reaction(None, "The user looked at the screen; they have no choice to make right now.")
        return react(decisions, view.screen, view.screen_id)

    def _end(self, text: str) -> UserMessage:
        self._ended = True
        return UserMessage(text, end=True, kind="end")

    def state(self) -> dict[str, object]:
        return {"round": self._index + 1, "rounds": len(self._rounds), "interjections_delivered": sorted(self._delivered),
                "conversation_ended": self._ended}
