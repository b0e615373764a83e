"""GitHub's search syntax (``is:open label:bug author:x sort:created-asc words``) as the website's
``?q=``, ``gh … --search`` and the REST API's ``search/issues`` read it: :func:`parse_query` turns
the text into a :class:`Query` that matches and orders issues."""

from __future__ import annotations

import shlex
from dataclasses import dataclass, field
from typing import Any, Callable

from .github_model import LOGIN, GitHubError, Issue


@dataclass
class Query:
    """A GitHub search (``is:open label:bug author:x sort:created-asc words``)."""

    state: str | None = None  # open | closed | merged
    kind: str | None = None  # issue | pr
    labels: list[list[str]] = field(default_factory=list)  # AND of ORs
    not_labels: list[str] = field(default_factory=list)
    no: list[str] = field(default_factory=list)  # label | assignee
    author: str | None = None
    assignee: str | None = None
    repo: str | None = None
    sort: str = "created-desc"
    words: list[str] = field(default_factory=list)

    def matches(self, it: Issue) -> bool:
        if self.kind == "issue" and it.is_pr or self.kind == "pr" and not it.is_pr:
            return False
        if self.state == "merged" and not it.merged_at:
            return False
        if self.state in ("open", "closed") and it.state != self.state:
            return False
        have = {x.lower() for x in it.labels}
        if any(not any(x.lower() in have for x in group) for group in self.labels):
            return False
        if any(x.lower() in have for x in self.not_labels):
            return False
        if "label" in self.no and it.labels or "assignee" in self.no and it.assignees:
            return False
        if self.author and it.author.lower() != (LOGIN if self.author == "@me" else self.author).lower():
            return False
        if self.assignee and (LOGIN if self.assignee == "@me" else self.assignee).lower() not in [a.lower() for a in it.assignees]:
            return False
        text = (it.title + " " + it.body).lower()
        return all(w.lower() in text for w in self.words)

    def order(self, items: list[Issue]) -> list[Issue]:
        key, _, direction = self.sort.partition("-")
        f: Callable[[Issue], Any] = {"updated": lambda i: (i.updated, i.number), "comments": lambda i: (len(i.comments), i.number)}.get(
            key, lambda i: (i.created_at, i.number))
        return sorted(items, key=f, reverse=direction != "asc")


def parse_query(q: str) -> Query:
    """Parse GitHub's search syntax; unknown qualifiers raise ``GitHubError`` (422) naming them."""
    try:
        tokens = shlex.split(q, posix=True)
    except ValueError:
        raise GitHubError(422, f"The search query is malformed (an unclosed quote?): {q!r}") from None
    out = Query()
    for tok in tokens:
        neg = tok.startswith("-") and ":" in tok
        key, sep, val = tok.lstrip("-").partition(":") if neg else tok.partition(":")
        if not sep:
            out.words.append(tok)
            continue
        key = key.lower()
        if key in ("is", "state"):
            v = val.lower()
            if v in ("open", "closed", "merged"):
                out.state = v
            elif v in ("issue", "pr"):
                out.kind = v
            elif v in ("unmerged",):
                out.state = "closed"
            else:
                raise GitHubError(422, f"Invalid qualifier value {tok!r}: use is:open, is:closed, is:merged, is:issue or is:pr")
        elif key == "type":
            out.kind = "pr" if val.lower() in ("pr", "pull-request") else "issue"
        elif key == "label":
            (out.not_labels.extend if neg else (lambda xs: out.labels.append(xs)))(val.split(","))
        elif key == "no":
            out.no.append(val.lower())
        elif key in ("author", "assignee", "repo", "sort"):
            setattr(out, key, val)
        elif key == "in":
            continue
        else:
            raise GitHubError(422, f"Unsupported search qualifier {key!r} in {tok!r}; the simulator knows is:, state:, type:, "
                                   "label:, no:, author:, assignee:, repo:, sort:, in:")
    return out
