"""The GitHub simulator's data: repositories with issues, pull requests, comments and labels, read
from the JSON snapshots under ``data/github/`` (one file per repository), and :class:`GitHubStore`,
one episode's repositories and the writes (create, comment, close/reopen, edit) every view of them
shares. The snapshot's times are moved so the snapshot moment falls a whole number of days before
the desktop clock."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any, Callable, Sequence

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "github"
LOGIN = "mac-user"  # the account gh is signed in to


def _parse_time(s: str | None) -> datetime | None:
    return datetime.fromisoformat(s.rstrip("Z")) if s else None



@dataclass
class Comment:
    id: int
    author: str
    body: str
    created_at: datetime


@dataclass
class Issue:
    """An issue or (``is_pr``) a pull request; ``state`` is open/closed (a merged PR is closed with ``merged_at``)."""

    number: int
    title: str
    body: str
    state: str
    author: str
    created_at: datetime
    labels: list[str] = field(default_factory=list)
    assignees: list[str] = field(default_factory=list)
    comments: list[Comment] = field(default_factory=list)
    state_reason: str | None = None
    closed_at: datetime | None = None
    updated_at: datetime | None = None
    is_pr: bool = False
    head: str = ""
    base: str = "main"
    draft: bool = False
    merged_at: datetime | None = None

    @property
    def updated(self) -> datetime:
        times = [self.created_at, self.updated_at, self.closed_at] + [c.created_at for c in self.comments]
        return max(t for t in times if t is not None)

    @property
    def pr_state(self) -> str:
        return "MERGED" if self.merged_at else self.state.upper()


@dataclass
class Label:
    name: str
    color: str
    description: str


@dataclass
class Repo:
    owner: str
    name: str
    description: str
    language: str
    stars: int
    forks: int
    topics: list[str]
    readme: str
    maintainer: str
    created_at: datetime
    labels: list[Label]
    items: dict[int, Issue]

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @property
    def rid(self) -> int:
        return 100000 + sum(ord(c) for c in self.full_name) * 7

    def label(self, name: str) -> Label | None:
        for lab in self.labels:
            if lab.name.lower() == name.lower():
                return lab
        return None

    def issues(self, prs: bool | None = False) -> list[Issue]:
        """Items newest first; ``prs`` False = issues only, True = pull requests only, None = both."""
        out = [i for i in self.items.values() if prs is None or i.is_pr == prs]
        return sorted(out, key=lambda i: i.number, reverse=True)


class GitHubError(Exception):
    """A failed request: ``status`` (HTTP) and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


def load_repo(path: Path, shift: timedelta) -> Repo:
    """Read one repository snapshot, moving every time by ``shift``."""
    try:
        d = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{path}: not a readable JSON repository snapshot ({e})") from None

    def t(s: str | None) -> datetime | None:
        v = _parse_time(s)
        return v + shift if v is not None else None

    items: dict[int, Issue] = {}
    cid = 0
    for i, it in enumerate(d["items"]):
        for k in ("number", "title", "state", "author", "created_at"):
            if k not in it:
                raise ValueError(f"{path}: items[{i}] lacks field {k!r}")
        comments = []
        for c in it.get("comments", []):
            cid += 1
            comments.append(Comment(900000 + cid, c["author"], c["body"], t(c["created_at"]) or datetime.min))
        is_pr = it.get("kind") == "pull"
        items[int(it["number"])] = Issue(
            int(it["number"]), it["title"], it.get("body", ""), "open" if it["state"] == "open" else "closed", it["author"],
            t(it["created_at"]) or datetime.min, list(it.get("labels", [])), list(it.get("assignees", [])), comments,
            it.get("state_reason"), t(it.get("closed_at")), None, is_pr, it.get("head", ""), it.get("base", "main"),
            bool(it.get("draft", False)), t(it.get("merged_at")))
    first = min((i.created_at for i in items.values()), default=datetime(2025, 1, 1))
    return Repo(d["owner"], d["name"], d.get("description", ""), d.get("language", ""), int(d.get("stargazers_count", 0)),
                int(d.get("forks_count", 0)), list(d.get("topics", [])), d.get("readme", ""), d.get("maintainer", d["owner"]),
                first - timedelta(days=400), [Label(x["name"], x.get("color", "ededed"), x.get("description", "")) for x in d["labels"]],
                items)


class GitHubStore:
    """Every repository of one episode (loaded on first use)."""

    def __init__(self, now: Callable[[], datetime]) -> None:
        self._now = now
        self._repos: dict[str, Repo] | None = None
        self._comment_ids = 2_000_000

    @property
    def now(self) -> datetime:
        return self._now().replace(second=0, microsecond=0)

    @property
    def repos(self) -> dict[str, Repo]:
        if self._repos is None:
            self._repos = {}
            for p in sorted(DATA_DIR.glob("*.json")):
                snap = _parse_time(json.loads(p.read_text(encoding="utf-8")).get("snapshot")) or self.now
                days = (self._now().date() - snap.date()).days
                r = load_repo(p, timedelta(days=days))
                self._repos[r.full_name.lower()] = r
        return self._repos

    def repo(self, full_name: str) -> Repo:
        r = self.repos.get(full_name.strip().strip("/").lower().removesuffix(".git"))
        if r is None:
            raise GitHubError(404, f"Could not resolve to a Repository with the name '{full_name}'.")
        return r

    def item(self, repo: Repo, number: int, pr: bool | None = None) -> Issue:
        it = repo.items.get(number)
        if it is None or (pr is True and not it.is_pr):
            what = "a PullRequest" if pr else "an issue or pull request"
            raise GitHubError(404, f"Could not resolve to {what} with the number of {number}.")
        return it

    # ------------------------------------------------------------------ writes
    def create_issue(self, repo: Repo, title: str, body: str, labels: list[str], assignees: list[str]) -> Issue:
        if not title.strip():
            raise GitHubError(422, "title can't be blank")
        names = []
        for name in labels:
            lab = repo.label(name)
            if lab is None:
                raise GitHubError(422, f"could not add label: '{name}' not found")
            names.append(lab.name)
        n = max(repo.items, default=0) + 1
        it = Issue(n, title, body, "open", LOGIN, self.now, names, list(assignees))
        repo.items[n] = it
        return it

    def comment(self, issue: Issue, body: str) -> Comment:
        if not body.strip():
            raise GitHubError(422, "body can't be blank")
        self._comment_ids += 1
        c = Comment(self._comment_ids, LOGIN, body, self.now)
        issue.comments.append(c)
        return c

    def set_state(self, issue: Issue, state: str, reason: str | None = None) -> None:
        if state == "closed":
            issue.state, issue.closed_at = "closed", self.now
            issue.state_reason = reason or "completed"
        else:
            issue.state, issue.closed_at = "open", None
            issue.state_reason = "reopened"
        issue.updated_at = self.now

    def edit(self, repo: Repo, issue: Issue, title: str | None = None, body: str | None = None,
             add_labels: Sequence[str] = (), remove_labels: Sequence[str] = (), add_assignees: Sequence[str] = ()) -> None:
        """Change an issue's title, body, labels (names must exist in the repository) or assignees."""
        missing = [name for name in add_labels if repo.label(name) is None]
        if missing:  # checked first: a refused edit changes nothing
            raise GitHubError(422, f"'{missing[0]}' not found")
        for name in add_labels:
            lab = repo.label(name)
            if lab is not None and lab.name not in issue.labels:
                issue.labels.append(lab.name)
        for name in remove_labels:
            issue.labels = [x for x in issue.labels if x.lower() != name.lower()]
        if title is not None:
            issue.title = title
        if body is not None:
            issue.body = body
        for a in add_assignees:
            a = LOGIN if a == "@me" else a
            if a not in issue.assignees:
                issue.assignees.append(a)
        issue.updated_at = self.now

    def state(self) -> dict[str, Any]:
        out = {}
        for key, r in (self._repos or {}).items():
            out[r.full_name] = {"open_issues": [i.number for i in r.issues() if i.state == "open"],
                                "closed_issues": [i.number for i in r.issues() if i.state == "closed"],
                                "open_pulls": [i.number for i in r.issues(True) if i.state == "open"]}
        return out
