"""GitHub, offline: repositories with issues, pull requests, labels and a README, shown three ways
from one state — pages at ``https://github.com/<owner>/<repo>[/issues|/pulls|/issues/<n>|/labels]``
in Safari, the REST API at ``https://api.github.com/…`` for ``curl``, and the ``gh`` command.
Creating, closing, reopening, commenting on and editing issues (``gh issue …`` or ``gh api``)
changes what all three show.

The data ships as JSON snapshots under ``data/github/`` (one file per repository). Their times are
moved so the snapshot moment falls a whole number of days before the desktop clock: "opened 2 days
ago" reads the same for any task date. The signed-in account (:data:`LOGIN`) may write to every
repository. ``GitHub`` has no window: activating it opens github.com in Safari, like a web app.
"""

from __future__ import annotations

import base64
import html
import json
import re
import shlex
import shutil
import subprocess
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Sequence
from urllib.parse import parse_qs, quote, quote_plus, urlparse

from .base import App, CommandContext

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

    from ..desktop import Desktop

DATA_DIR = Path(__file__).resolve().parent.parent / "data" / "github"
LOGIN = "mac-user"  # the account gh is signed in to
WEB = "https://github.com"
API = "https://api.github.com"
PAGE_SIZE = 25  # issues per page on the website


def _iso(t: datetime | None) -> str | None:
    return t.strftime("%Y-%m-%dT%H:%M:%SZ") if t is not None else None


def _parse_time(s: str | None) -> datetime | None:
    return datetime.fromisoformat(s.rstrip("Z")) if s else None


def _node_id(prefix: str, n: int) -> str:
    return prefix + base64.b64encode(f"{n:010d}".encode()).decode().rstrip("=")


# ------------------------------------------------------------------------------------------- model
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


# ------------------------------------------------------------------------------------------- search
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


def rel_time(t: datetime, now: datetime) -> str:
    """GitHub's relative time: "now", "5 minutes ago", "yesterday", "3 days ago", "on Feb 3"."""
    s = (now - t).total_seconds()
    if s < 60:
        return "now"
    if s < 3600:
        m = int(s // 60)
        return f"{m} minute{'s' if m > 1 else ''} ago"
    if s < 86400:
        h = int(s // 3600)
        return f"{h} hour{'s' if h > 1 else ''} ago"
    d = int(s // 86400)
    if d == 1:
        return "yesterday"
    if d < 30:
        return f"{d} days ago"
    return f"on {t.strftime('%b')} {t.day}" + (f", {t.year}" if t.year != now.year else "")


# ------------------------------------------------------------------------------------------- REST JSON
def user_json(login: str) -> dict[str, Any]:
    uid = 1000 + sum(ord(c) * (i + 1) for i, c in enumerate(login))
    return {"login": login, "id": uid, "node_id": _node_id("U_kgDO", uid), "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
            "url": f"{API}/users/{login}", "html_url": f"{WEB}/{login}", "type": "User", "site_admin": False}


def label_json(repo: Repo, lab: Label) -> dict[str, Any]:
    lid = repo.rid * 100 + repo.labels.index(lab)
    return {"id": lid, "node_id": _node_id("LA_kwDO", lid), "url": f"{API}/repos/{repo.full_name}/labels/{quote(lab.name)}",
            "name": lab.name, "color": lab.color, "default": lab.name in ("bug", "enhancement", "documentation", "question"),
            "description": lab.description}


def issue_json(repo: Repo, it: Issue) -> dict[str, Any]:
    base = f"{API}/repos/{repo.full_name}/issues/{it.number}"
    iid = repo.rid * 1000 + it.number
    out: dict[str, Any] = {
        "url": base, "repository_url": f"{API}/repos/{repo.full_name}", "labels_url": base + "/labels{/name}",
        "comments_url": base + "/comments", "events_url": base + "/events",
        "html_url": f"{WEB}/{repo.full_name}/{'pull' if it.is_pr else 'issues'}/{it.number}",
        "id": iid, "node_id": _node_id("PR_kwDO" if it.is_pr else "I_kwDO", iid), "number": it.number, "title": it.title,
        "user": user_json(it.author), "labels": [label_json(repo, lab) for n in it.labels if (lab := repo.label(n))],
        "state": it.state, "locked": False, "assignee": user_json(it.assignees[0]) if it.assignees else None,
        "assignees": [user_json(a) for a in it.assignees], "milestone": None, "comments": len(it.comments),
        "created_at": _iso(it.created_at), "updated_at": _iso(it.updated), "closed_at": _iso(it.closed_at),
        "author_association": "MEMBER" if it.author == repo.maintainer else "NONE", "active_lock_reason": None,
        "body": it.body, "state_reason": it.state_reason, "timeline_url": base + "/timeline"}
    if it.is_pr:
        out["draft"] = it.draft
        out["pull_request"] = {"url": f"{API}/repos/{repo.full_name}/pulls/{it.number}",
                               "html_url": f"{WEB}/{repo.full_name}/pull/{it.number}",
                               "diff_url": f"{WEB}/{repo.full_name}/pull/{it.number}.diff", "merged_at": _iso(it.merged_at)}
    return out


def pull_json(repo: Repo, it: Issue) -> dict[str, Any]:
    out = issue_json(repo, it)
    out.pop("pull_request")
    out.update({"url": f"{API}/repos/{repo.full_name}/pulls/{it.number}", "html_url": f"{WEB}/{repo.full_name}/pull/{it.number}",
                "merged_at": _iso(it.merged_at), "merged": it.merged_at is not None,
                "head": {"label": f"{repo.owner}:{it.head}", "ref": it.head}, "base": {"label": f"{repo.owner}:{it.base}", "ref": it.base}})
    return out


def comment_json(repo: Repo, it: Issue, c: Comment) -> dict[str, Any]:
    return {"url": f"{API}/repos/{repo.full_name}/issues/comments/{c.id}",
            "html_url": f"{WEB}/{repo.full_name}/issues/{it.number}#issuecomment-{c.id}", "id": c.id,
            "node_id": _node_id("IC_kwDO", c.id), "user": user_json(c.author), "created_at": _iso(c.created_at),
            "updated_at": _iso(c.created_at), "author_association": "MEMBER" if c.author == repo.maintainer else "NONE",
            "body": c.body}


def repo_json(repo: Repo) -> dict[str, Any]:
    open_items = sum(1 for i in repo.items.values() if i.state == "open")
    return {"id": repo.rid, "node_id": _node_id("R_kgDO", repo.rid), "name": repo.name, "full_name": repo.full_name,
            "private": False, "owner": user_json(repo.owner), "html_url": f"{WEB}/{repo.full_name}",
            "description": repo.description, "fork": False, "url": f"{API}/repos/{repo.full_name}",
            "created_at": _iso(repo.created_at), "language": repo.language, "stargazers_count": repo.stars,
            "watchers_count": repo.stars, "forks_count": repo.forks, "open_issues_count": open_items, "has_issues": True,
            "topics": repo.topics, "default_branch": "main", "visibility": "public",
            "license": {"key": "mit", "name": "MIT License", "spdx_id": "MIT"}}


def _api_error(status: int, message: str, doc: str = "https://docs.github.com/rest") -> tuple[int, str, str]:
    return status, "application/json", json.dumps({"message": message, "documentation_url": doc, "status": str(status)}, indent=2) + "\n"


# ------------------------------------------------------------------------------------------- HTML
def _md_html(text: str) -> str:
    """A README's Markdown as the handful of HTML blocks Safari's pages render."""
    out, in_code, para = [], False, []

    def flush() -> None:
        if para:
            out.append("<p>" + _inline(" ".join(para)) + "</p>")
            para.clear()

    for line in text.splitlines():
        if line.startswith("```"):
            flush()
            out.append("</pre>" if in_code else "<pre>")
            in_code = not in_code
            continue
        if in_code:
            out.append(html.escape(line) + "<br>")
            continue
        m = re.match(r"^(#{1,3})\s+(.*)", line)
        if m:
            flush()
            n = len(m.group(1))
            out.append(f"<h{n + 1 if n < 3 else 3}>{_inline(m.group(2))}</h{n + 1 if n < 3 else 3}>")
        elif re.match(r"^\s*([-*]|\d+\.)\s+", line):
            flush()
            out.append("<li>" + _inline(re.sub(r"^\s*([-*]|\d+\.)\s+", "", line)) + "</li>")
        elif not line.strip():
            flush()
        else:
            para.append(line.strip())
    flush()
    return "\n".join(out)


def _inline(s: str) -> str:
    return re.sub(r"`([^`]+)`", r"\1", html.escape(s))


def _page(title: str, body: str) -> tuple[int, str, str]:
    return 200, "text/html", f"<html><head><title>{html.escape(title)}</title></head><body>{body}</body></html>"


def _not_found() -> tuple[int, str, str]:
    return 404, "text/html", ("<html><head><title>Page not found · GitHub</title></head><body><h1>404</h1>"
                              "<p>This is not the web page you are looking for.</p></body></html>")


# ------------------------------------------------------------------------------------------- the app
class GitHubApp(App):
    """GitHub: the offline site, the REST API and ``gh``; no window (activating it opens github.com in Safari)."""

    name = "GitHub"
    bundle_id = "com.github.web"
    in_dock = False
    text_editing = False
    web_hosts = frozenset({"github.com", "www.github.com", "api.github.com"})
    shell_commands = {"gh": False}

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        # not ``store``: the desktop would take that for an AppleScript dictionary (GitHub has none)
        self.hub = GitHubStore(lambda: desktop.now)

    @staticmethod
    def draw_icon(size: int) -> "Image.Image":
        """A dark plate with a white branch-and-merge glyph (Spotlight and alerts show it; the dock does not)."""
        from ..icons import _canvas, _finish, _squircle

        img, d, S = _canvas(size)
        _squircle(d, S, (52, 58, 66), (22, 27, 34))
        w, white = max(2, S // 18), (240, 246, 252)
        x1, x2, top, bottom = S * 0.36, S * 0.64, S * 0.28, S * 0.72
        d.line((x1, top, x1, bottom), fill=white, width=w)
        d.line((x2, top + S * 0.06, x2, S * 0.44), fill=white, width=w)
        d.arc((x1, S * 0.30, x2 + (x2 - x1), S * 0.62), 90, 180, fill=white, width=w)
        r = S * 0.075
        for cx, cy in ((x1, top), (x1, bottom), (x2, top)):
            d.ellipse((cx - r, cy - r, cx + r, cy + r), fill=(22, 27, 34), outline=white, width=w)
        return _finish(img, size)

    def reopen(self) -> None:
        safari = self.desktop.app("Safari")
        self.desktop.activate(safari, reopen=False)
        safari.open_url(WEB + "/")

    def state(self) -> dict[str, Any]:
        return {"running": self.running, "repos": self.hub.state()}

    # ------------------------------------------------------------------ web
    def serve_web(self, method: str, url: str, data: str | None, browser: bool) -> tuple[int, str, str]:
        u = urlparse(url if "://" in url else "https://" + url)
        q = {k: v[-1] for k, v in parse_qs(u.query, keep_blank_values=True).items()}
        if (u.hostname or "").lower() == "api.github.com":
            return self.rest(method, u.path, q, data, authed=False)
        return self.web_page(u.path, q)

    def rest(self, method: str, path: str, q: dict[str, str], data: str | None, authed: bool) -> tuple[int, str, str]:
        """The REST API: GET for anyone; POST/PATCH (create, comment, edit, close) only when signed in (``gh api``)."""
        st = self.hub
        parts = [p for p in path.split("/") if p]
        if method not in ("GET", "HEAD") and not authed:
            return _api_error(401, "Requires authentication", "https://docs.github.com/rest/overview/authenticating-to-the-rest-api")
        try:
            body = json.loads(data) if data else {}
            if not isinstance(body, dict):
                raise ValueError("expected a JSON object")
        except ValueError as e:
            return _api_error(400, f"Problems parsing JSON ({e})")

        def dump(v: Any, status: int = 200) -> tuple[int, str, str]:
            return status, "application/json", json.dumps(v, indent=2, ensure_ascii=False) + "\n"

        try:
            if parts == ["user"] and authed:
                return dump(user_json(LOGIN))
            if parts[:2] == ["search", "issues"] and method == "GET":
                query = parse_query(q.get("q", ""))
                if not query.repo:
                    return _api_error(422, "Validation Failed: the simulator's search needs a repo: qualifier")
                repo = st.repo(query.repo)
                items = query.order([i for i in repo.issues(None) if query.matches(i)])
                return dump({"total_count": len(items), "incomplete_results": False,
                             "items": [issue_json(repo, i) for i in items[:_per_page(q)]]})
            if len(parts) < 3 or parts[0] != "repos":
                return _api_error(404, "Not Found")
            try:
                repo = st.repo(f"{parts[1]}/{parts[2]}")
            except GitHubError:
                return _api_error(404, "Not Found")
            rest = parts[3:]
            if not rest:
                return dump(repo_json(repo))
            if rest == ["readme"]:
                return dump({"name": "README.md", "path": "README.md", "type": "file", "encoding": "base64",
                             "content": base64.encodebytes(repo.readme.encode()).decode(),
                             "html_url": f"{WEB}/{repo.full_name}/blob/main/README.md"})
            if rest == ["labels"]:
                return dump([label_json(repo, lab) for lab in repo.labels])
            if rest[0] in ("issues", "pulls") and len(rest) == 1:
                if method == "POST" and rest[0] == "issues":
                    labels = body.get("labels", [])
                    it = st.create_issue(repo, str(body.get("title", "")), str(body.get("body", "") or ""),
                                         [str(x) for x in labels], [str(x) for x in body.get("assignees", [])])
                    return dump(issue_json(repo, it), 201)
                state = q.get("state", "open")
                if state not in ("open", "closed", "all"):
                    return _api_error(422, f"Validation Failed: state must be open, closed or all, got {state!r}")
                items = repo.issues(None if rest[0] == "issues" else True)
                items = [i for i in items if state == "all" or i.state == state]
                for name in [x for x in q.get("labels", "").split(",") if x.strip()]:
                    items = [i for i in items if name.strip().lower() in [x.lower() for x in i.labels]]
                if q.get("creator"):
                    items = [i for i in items if i.author.lower() == q["creator"].lower()]
                if q.get("assignee") and q["assignee"] not in ("*", "none"):
                    items = [i for i in items if q["assignee"].lower() in [a.lower() for a in i.assignees]]
                sort = q.get("sort", "created") + "-" + q.get("direction", "desc")
                items = Query(sort=sort).order(items)
                per, page = _per_page(q), max(1, int(q.get("page", "1") or 1))
                items = items[(page - 1) * per: page * per]
                return dump([(issue_json if rest[0] == "issues" else pull_json)(repo, i) for i in items])
            if rest[0] in ("issues", "pulls") and len(rest) >= 2 and rest[1].isdigit():
                it = st.item(repo, int(rest[1]), pr=True if rest[0] == "pulls" else None)
                if len(rest) == 3 and rest[2] == "comments":
                    if method == "POST":
                        c = st.comment(it, str(body.get("body", "")))
                        return dump(comment_json(repo, it, c), 201)
                    return dump([comment_json(repo, it, c) for c in it.comments])
                if len(rest) == 2:
                    if method == "PATCH":
                        unknown = [str(x) for x in body.get("labels", []) if repo.label(str(x)) is None]
                        if unknown:  # checked before anything changes
                            raise GitHubError(422, f"'{unknown[0]}' not found")
                        if "state" in body:
                            if body["state"] not in ("open", "closed"):
                                return _api_error(422, f"Validation Failed: state must be open or closed, got {body['state']!r}")
                            st.set_state(it, body["state"], body.get("state_reason"))
                        st.edit(repo, it, title=body.get("title"), body=body.get("body"))
                        if "labels" in body:
                            it.labels = []
                            st.edit(repo, it, add_labels=[str(x) for x in body["labels"]])
                    return dump((pull_json if rest[0] == "pulls" else issue_json)(repo, it))
            return _api_error(404, "Not Found")
        except GitHubError as e:
            return _api_error(404 if e.status == 404 else 422, "Not Found" if e.status == 404 else f"Validation Failed: {e}")
        except ValueError as e:
            return _api_error(400, str(e))

    def web_page(self, path: str, q: dict[str, str]) -> tuple[int, str, str]:
        """github.com pages: the dashboard, a repository, its issues and pull requests (filtered with ``?q=``), one
        issue or pull request, and its labels."""
        st = self.hub
        parts = [p for p in path.split("/") if p]
        if not parts:
            lis = "".join(f'<li><a href="/{r.full_name}">{html.escape(r.full_name)}</a> — {html.escape(r.description)}</li>'
                          for r in st.repos.values())
            return _page("GitHub", f"<h1>Dashboard</h1><p>Signed in as {LOGIN}</p><h2>Repositories</h2><ul>{lis}</ul>")
        if len(parts) < 2:
            return _not_found()
        try:
            repo = st.repo(f"{parts[0]}/{parts[1]}")
        except GitHubError:
            return _not_found()
        rest = parts[2:]
        n_open = sum(1 for i in repo.issues() if i.state == "open")
        n_prs = sum(1 for i in repo.issues(True) if i.state == "open")
        nav = (f'<p><a href="/{repo.full_name}">Code</a> · <a href="/{repo.full_name}/issues">Issues {n_open}</a> · '
               f'<a href="/{repo.full_name}/pulls">Pull requests {n_prs}</a> · <a href="/{repo.full_name}/labels">Labels</a></p>')
        head = f'<h1><a href="/{repo.owner}">{repo.owner}</a> / <a href="/{repo.full_name}">{repo.name}</a></h1>{nav}<hr>'
        if not rest:
            about = (f"<h2>About</h2><p>{html.escape(repo.description)}</p><p>{repo.stars:,} stars · {repo.forks:,} forks · "
                     f"{html.escape(repo.language)} · MIT license</p>")
            return _page(f"{repo.full_name}: {repo.description}", head + about + "<h2>README.md</h2>" + _md_html(repo.readme))
        if rest == ["labels"]:
            lis = "".join(f'<li><a href="/{repo.full_name}/issues?q={quote_plus(f"is:issue is:open label:{_qlabel(lab.name)}")}">'
                          f'{html.escape(lab.name)}</a> — {html.escape(lab.description)} '
                          f'({sum(1 for i in repo.issues() if i.state == "open" and lab.name in i.labels)} open issues)</li>'
                          for lab in repo.labels)
            return _page(f"Labels · {repo.full_name}", head + f"<h2>{len(repo.labels)} labels</h2><ul>{lis}</ul>")
        if rest[0] in ("issues", "pulls") and len(rest) == 1:
            return self._list_page(repo, head, rest[0] == "pulls", q)
        if rest[0] in ("issues", "pull") and len(rest) == 2 and rest[1].isdigit():
            it = repo.items.get(int(rest[1]))
            if it is None:
                return _not_found()
            return self._item_page(repo, head, it)
        return _not_found()

    def _list_page(self, repo: Repo, head: str, prs: bool, q: dict[str, str]) -> tuple[int, str, str]:
        kind = "pr" if prs else "issue"
        text = q.get("q", f"is:{kind} is:open")
        try:
            query = parse_query(text)
        except GitHubError as e:
            return _page(f"{'Pull requests' if prs else 'Issues'} · {repo.full_name}", head + f"<p>{html.escape(str(e))}</p>")
        query.kind = query.kind or kind
        matched = query.order([i for i in repo.issues(None) if query.matches(i)])
        base = f"/{repo.full_name}/{'pulls' if prs else 'issues'}"
        counts = {s: sum(1 for i in repo.issues(prs) if i.state == s and _with_state(query, s).matches(i)) for s in ("open", "closed")}
        tabs = " · ".join(f'<a href="{base}?q={quote_plus(_requery(text, s))}">{counts[s]} {s.title()}</a>' for s in ("open", "closed"))
        labels = ", ".join(f'<a href="{base}?q={quote_plus(f"is:{kind} is:open label:{_qlabel(lab.name)}")}">{html.escape(lab.name)}</a>'
                           for lab in repo.labels)
        try:
            page = max(1, int(q.get("page", "1") or 1))
        except ValueError:
            page = 1
        shown = matched[(page - 1) * PAGE_SIZE: page * PAGE_SIZE]
        lis = []
        for i in shown:
            labs = "".join(f" [{html.escape(x)}]" for x in i.labels)
            when = rel_time(i.created_at, self.hub.now)
            verb = "opened" if i.state == "open" else ("merged" if i.merged_at else "closed")
            path = "pull" if i.is_pr else "issues"
            lis.append(f'<li><a href="/{repo.full_name}/{path}/{i.number}">{html.escape(i.title)}</a>{labs} — '
                       f'#{i.number} {verb} {when} by {i.author}' + (" · Draft" if i.draft and i.state == "open" else "")
                       + (f" · {len(i.comments)} comment{'s' if len(i.comments) > 1 else ''}" if i.comments else "") + "</li>")
        nav = []
        if page > 1:
            nav.append(f'<a href="{base}?q={quote_plus(text)}&page={page - 1}">Previous</a>')
        if page * PAGE_SIZE < len(matched):
            nav.append(f'<a href="{base}?q={quote_plus(text)}&page={page + 1}">Next</a>')
        body = (head + f"<h2>{'Pull requests' if prs else 'Issues'}</h2><p>Filters: {html.escape(text)}</p><p>{tabs}</p>"
                f"<p>Labels: {labels}</p>" + ("<ul>" + "".join(lis) + "</ul>" if lis else
                                              "<p>No results matched your search.</p>") + (f"<p>{' · '.join(nav)}</p>" if nav else ""))
        return _page(f"{'Pull requests' if prs else 'Issues'} · {repo.full_name}", body)

    def _item_page(self, repo: Repo, head: str, it: Issue) -> tuple[int, str, str]:
        now = self.hub.now
        if it.is_pr:
            status = "Merged" if it.merged_at else ("Closed" if it.state == "closed" else ("Draft" if it.draft else "Open"))
            sub = f"{status} · {it.author} wants to merge into {it.base} from {it.head}"
        else:
            status = "Open" if it.state == "open" else ("Closed as not planned" if it.state_reason == "not_planned" else "Closed")
            sub = (f"{status} · {it.author} opened this issue {rel_time(it.created_at, now)} · "
                   f"{len(it.comments)} comment{'' if len(it.comments) == 1 else 's'}")
        parts = [head, f"<h1>{html.escape(it.title)} #{it.number}</h1>", f"<p>{html.escape(sub)}</p>",
                 f"<p>Labels: {html.escape(', '.join(it.labels) or 'None yet')}</p>",
                 f"<p>Assignees: {html.escape(', '.join(it.assignees) or 'No one assigned')}</p>",
                 f"<h3>{it.author} commented {rel_time(it.created_at, now)}</h3>", _md_html(it.body or "No description provided.")]
        for c in it.comments:
            parts.append(f"<h3>{c.author} commented {rel_time(c.created_at, now)}</h3>")
            parts.append(_md_html(c.body))
        if it.state == "closed" and it.closed_at:
            parts.append(f"<p>{'Merged' if it.merged_at else 'Closed'} {rel_time(it.closed_at, now)}</p>")
        kind = "Pull Request" if it.is_pr else "Issue"
        return _page(f"{it.title} · {kind} #{it.number} · {repo.full_name}", "".join(parts))

    # ------------------------------------------------------------------ gh
    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        try:
            return _Gh(self, _origin_repo(ctx), ctx).run(argv[1:])
        except _Usage as e:
            return "", str(e).rstrip("\n") + "\n", 1
        except GitHubError as e:
            prefix = "GraphQL: " if e.status == 404 else ""
            return "", f"{prefix}{e}\n", 1


def _origin_repo(ctx: CommandContext) -> str | None:
    """OWNER/REPO from the ``origin`` (else first) github.com remote of the git clone around the shell's
    folder, as gh picks the repository when no ``-R`` is given; ``""`` in a clone without such a remote."""
    try:
        here = ctx.resolve(".")
    except Exception:  # noqa: BLE001 - a folder outside the home: no clone to look at
        return None
    home = Path(ctx.backend.home).resolve()
    for folder in (here, *here.parents):
        if not folder.resolve().is_relative_to(home):
            break  # never the host's folders above the episode's home
        config = folder / ".git" / "config"
        if config.is_file():
            remotes = re.findall(r'\[remote "([^"]+)"\][^\[]*?url\s*=\s*(\S+)', config.read_text(errors="replace"))
            urls = [u for name, u in sorted(remotes, key=lambda r: r[0] != "origin")]
            for url in urls:
                m = re.search(r"github\.com[:/]([^/\s]+/[^/\s]+?)(?:\.git)?/?$", url)
                if m:
                    return m.group(1)
            return ""
    return None


def _per_page(q: dict[str, str]) -> int:
    try:
        return max(1, min(100, int(q.get("per_page", "30") or 30)))
    except ValueError:
        return 30


def _qlabel(name: str) -> str:
    return f'"{name}"' if " " in name else name


def _with_state(query: Query, state: str) -> Query:
    from dataclasses import replace

    return replace(query, state=state)


def _requery(text: str, state: str) -> str:
    out = re.sub(r"\b(is|state):(open|closed)\b", f"is:{state}", text)
    return out if out != text or f"is:{state}" in out else f"{text} is:{state}"


# ------------------------------------------------------------------------------------------- gh CLI
class _Usage(Exception):
    """A gh usage error (its text is what gh prints)."""


ISSUE_FIELDS = ("assignees", "author", "body", "closed", "closedAt", "comments", "createdAt", "id", "isPinned", "labels",
                "milestone", "number", "projectCards", "projectItems", "reactionGroups", "state", "stateReason", "title",
                "updatedAt", "url")
PR_FIELDS = ("additions", "assignees", "author", "baseRefName", "body", "closed", "closedAt", "comments", "createdAt",
             "deletions", "headRefName", "id", "isDraft", "labels", "mergedAt", "number", "state", "title", "updatedAt", "url")
REPO_FIELDS = ("createdAt", "defaultBranchRef", "description", "forkCount", "id", "isPrivate", "languages", "licenseInfo",
               "name", "nameWithOwner", "owner", "primaryLanguage", "stargazerCount", "url", "visibility")

# command → {long flag: (short flag or "", kind)} with kind "str", "int", "list" or "bool"
_COMMON = {"--repo": ("-R", "str")}
_FLAGS: dict[str, dict[str, tuple[str, str]]] = {
    "issue list": {**_COMMON, "--label": ("-l", "list"), "--state": ("-s", "str"), "--limit": ("-L", "int"),
                   "--author": ("-A", "str"), "--assignee": ("-a", "str"), "--search": ("-S", "str"), "--json": ("", "str"),
                   "--jq": ("-q", "str"), "--web": ("-w", "bool")},
    "issue view": {**_COMMON, "--json": ("", "str"), "--jq": ("-q", "str"), "--comments": ("-c", "bool"), "--web": ("-w", "bool")},
    "issue create": {**_COMMON, "--title": ("-t", "str"), "--body": ("-b", "str"), "--label": ("-l", "list"),
                     "--assignee": ("-a", "list"), "--body-file": ("-F", "str")},
    "issue close": {**_COMMON, "--comment": ("-c", "str"), "--reason": ("-r", "str")},
    "issue reopen": {**_COMMON, "--comment": ("-c", "str")},
    "issue comment": {**_COMMON, "--body": ("-b", "str"), "--body-file": ("-F", "str")},
    "issue edit": {**_COMMON, "--title": ("-t", "str"), "--body": ("-b", "str"), "--add-label": ("", "list"),
                   "--remove-label": ("", "list"), "--add-assignee": ("", "list")},
    "pr list": {**_COMMON, "--label": ("-l", "list"), "--state": ("-s", "str"), "--limit": ("-L", "int"),
                "--author": ("-A", "str"), "--search": ("-S", "str"), "--json": ("", "str"), "--jq": ("-q", "str"),
                "--draft": ("-d", "bool"), "--base": ("-B", "str"), "--head": ("-H", "str")},
    "pr view": {**_COMMON, "--json": ("", "str"), "--jq": ("-q", "str"), "--comments": ("-c", "bool")},
    "repo view": {"--json": ("", "str"), "--jq": ("-q", "str"), "--web": ("-w", "bool"), "--branch": ("-b", "str")},
    "label list": {**_COMMON, "--json": ("", "str"), "--jq": ("-q", "str"), "--limit": ("-L", "int"), "--search": ("-S", "str")},
    "api": {"--method": ("-X", "str"), "--field": ("-f", "list"), "--raw-field": ("", "list"), "--jq": ("-q", "str"),
            "--paginate": ("", "bool"), "--include": ("-i", "bool"), "-F": ("", "list"), "--header": ("-H", "list")},
}

_HELP = """Work seamlessly with GitHub from the command line.

USAGE
  gh <command> <subcommand> [flags]

CORE COMMANDS
  issue:       Manage issues
  pr:          Manage pull requests
  repo:        Manage repositories

GITHUB ACTIONS COMMANDS
  (not available in the simulator)

ADDITIONAL COMMANDS
  api:         Make an authenticated GitHub API request
  auth:        Authenticate gh and git with GitHub
  label:       Manage labels
"""


_COMMA_LISTS = frozenset({"--label", "--add-label", "--remove-label", "--assignee", "--add-assignee"})


def _parse(cmd: str, args: list[str]) -> tuple[dict[str, Any], list[str]]:
    spec = _FLAGS[cmd]
    short = {s: long for long, (s, _k) in spec.items() if s}
    opts: dict[str, Any] = {}
    pos: list[str] = []
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            pos += args[i + 1:]
            break
        if a.startswith("-") and a != "-":
            name, eq, val = a.partition("=")
            long = name if name in spec else short.get(name)
            if long is None and name.startswith("-") and not name.startswith("--") and len(name) > 2 and name[:2] in short:
                long, val, eq = short[name[:2]], name[2:], "="  # -L5, -Rowner/repo
            if long is None:
                raise _Usage(f"unknown flag: {name}\n\nUsage:  gh {cmd} [flags]\n\nFlags:\n" +
                             "".join(f"  {(s + ', ') if s else '    '}{lng}\n" for lng, (s, _k) in spec.items()))
            kind = spec[long][1]
            if kind == "bool":
                opts[long] = True
                i += 1
                continue
            if not eq:
                if i + 1 >= len(args):
                    raise _Usage(f"flag needs an argument: {name}\n\nUsage:  gh {cmd} [flags]")
                val = args[i + 1]
                i += 2
            else:
                i += 1
            if kind == "int":
                try:
                    opts[long] = int(val)
                except ValueError:
                    raise _Usage(f'invalid argument "{val}" for "{(spec[long][0] + ", ") if spec[long][0] else ""}{long}" flag: '
                                 f'strconv.ParseInt: parsing "{val}": invalid syntax') from None
            elif kind == "list" and long in _COMMA_LISTS:  # --label a,b is two labels
                opts.setdefault(long, []).extend(v.strip() for v in val.split(",") if v.strip())
            elif kind == "list":
                opts.setdefault(long, []).append(val)
            else:
                opts[long] = val
        else:
            pos.append(a)
            i += 1
    return opts, pos


class _Gh:
    """One ``gh`` invocation (non-interactive: the shell is not a terminal, so output is the machine-readable form)."""

    def __init__(self, app: GitHubApp, origin: str | None = None, ctx: CommandContext | None = None) -> None:
        self.app = app
        self.ctx = ctx
        self.st = app.hub
        self.origin = origin  # OWNER/REPO of the git clone the shell is in (its github.com remote), if any

    def run(self, args: list[str]) -> tuple[str, str, int]:
        if not args or args[0] in ("help", "--help", "-h"):
            return _HELP, "", 0
        if args[0] == "--version" or args[0] == "version":
            return "gh version 2.63.0 (2025-01-07)\nhttps://github.com/cli/cli/releases/tag/v2.63.0\n", "", 0
        if args[0] == "auth":
            if args[1:2] == ["status"]:
                return ("github.com\n  ✓ Logged in to github.com account " + LOGIN + " (keyring)\n  - Active account: true\n"
                        "  - Git operations protocol: https\n  - Token: gho_************************************\n"
                        "  - Token scopes: 'gist', 'read:org', 'repo', 'workflow'\n"), "", 0
            raise _Usage("the simulator's gh is already signed in; `gh auth status` shows the account")
        group = args[0]
        if group == "api":
            return self.api(*_parse("api", args[1:]))
        if group not in ("issue", "pr", "repo", "label") or len(args) < 2:
            raise _Usage(f'unknown command "{group}" for "gh"\n\nUsage:  gh <command> <subcommand> [flags]\n\nAvailable commands:\n'
                         "  api\n  auth\n  issue\n  label\n  pr\n  repo")
        cmd = f"{group} {args[1]}"
        if cmd not in _FLAGS:
            subs = sorted(c.split()[1] for c in _FLAGS if c.startswith(group + " "))
            raise _Usage(f'unknown command "{args[1]}" for "gh {group}"\n\nAvailable commands:\n' + "".join(f"  {s}\n" for s in subs))
        opts, pos = _parse(cmd, args[2:])
        return getattr(self, cmd.replace(" ", "_"))(opts, pos)

    # ------------------------------------------------------------------ helpers
    def _repo(self, opts: dict[str, Any], pos: list[str] | None = None) -> Repo:
        name = opts.get("--repo") or self.origin
        if not name and pos:
            m = re.match(r"https://github\.com/([^/]+/[^/]+)/(issues|pull)/\d+", pos[0])
            if m:
                name = m.group(1)
        if name == "":
            raise _Usage("none of the git remotes configured for this repository point to a known GitHub host. "
                         "To tell gh about a new GitHub host, please use `gh auth login`")
        if name is None:
            raise _Usage("failed to run git: fatal: not a git repository (or any of the parent directories): .git\n"
                         "(give the repository with -R OWNER/REPO)")
        name = re.sub(r"^(https://)?github\.com/", "", name)
        if name.count("/") != 1:
            raise _Usage(f'expected the "[HOST/]OWNER/REPO" format, got "{name}"')
        return self.st.repo(name)

    def _number(self, pos: list[str], what: str = "issue") -> int:
        if not pos:
            raise _Usage(f"accepts 1 arg(s), received 0\n\nUsage:  gh {what} <command> {{<number> | <url>}} [flags]")
        m = re.match(r"^#?(\d+)$", pos[0]) or re.match(r"^https://github\.com/[^/]+/[^/]+/(?:issues|pull)/(\d+)", pos[0])
        if not m:
            raise _Usage(f'invalid {what} format: "{pos[0]}"')
        return int(m.group(1))

    def _emit(self, data: Any, opts: dict[str, Any]) -> tuple[str, str, int]:
        text = json.dumps(data, ensure_ascii=False, sort_keys=True, separators=(",", ":")) + "\n"
        if opts.get("--jq"):
            return _jq(opts["--jq"], text)
        return text, "", 0

    @staticmethod
    def _fields(opts: dict[str, Any], allowed: tuple[str, ...]) -> list[str] | None:
        if "--json" not in opts:
            if opts.get("--jq"):
                raise _Usage("cannot use `--jq` without specifying `--json`")
            return None
        names = [f.strip() for f in opts["--json"].split(",") if f.strip()]
        for f in names:
            if f not in allowed:
                raise _Usage(f'Unknown JSON field: "{f}"\nAvailable fields:\n' + "".join(f"  {a}\n" for a in allowed))
        if not names:
            raise _Usage("Specify one or more comma-separated fields for `--json`:\n" + "".join(f"  {a}\n" for a in allowed))
        return names

    def _issue_fields(self, repo: Repo, it: Issue, names: list[str]) -> dict[str, Any]:
        def person(login: str) -> dict[str, Any]:
            return {"id": user_json(login)["node_id"], "is_bot": False, "login": login, "name": ""}

        def labels() -> list[dict[str, Any]]:
            out = []
            for n in it.labels:
                lab = repo.label(n)
                if lab is not None:
                    j = label_json(repo, lab)
                    out.append({"id": j["node_id"], "name": lab.name, "description": lab.description, "color": lab.color})
            return out

        def comments() -> list[dict[str, Any]]:
            return [{"id": _node_id("IC_kwDO", c.id), "author": {"login": c.author},
                     "authorAssociation": "MEMBER" if c.author == repo.maintainer else "NONE", "body": c.body,
                     "createdAt": _iso(c.created_at), "includesCreatedEdit": False, "isMinimized": False, "minimizedReason": "",
                     "reactionGroups": [], "url": f"{WEB}/{repo.full_name}/issues/{it.number}#issuecomment-{c.id}",
                     "viewerDidAuthor": c.author == LOGIN} for c in it.comments]

        values: dict[str, Callable[[], Any]] = {
            "assignees": lambda: [{"id": user_json(a)["node_id"], "login": a, "name": ""} for a in it.assignees],
            "author": lambda: person(it.author), "body": lambda: it.body, "closed": lambda: it.state == "closed",
            "closedAt": lambda: _iso(it.closed_at), "comments": comments, "createdAt": lambda: _iso(it.created_at),
            "id": lambda: issue_json(repo, it)["node_id"], "isPinned": lambda: False, "labels": labels, "milestone": lambda: None,
            "number": lambda: it.number, "projectCards": lambda: [], "projectItems": lambda: [], "reactionGroups": lambda: [],
            "state": lambda: it.pr_state if it.is_pr else it.state.upper(),
            "stateReason": lambda: (it.state_reason or "").upper(), "title": lambda: it.title,
            "updatedAt": lambda: _iso(it.updated),
            "url": lambda: f"{WEB}/{repo.full_name}/{'pull' if it.is_pr else 'issues'}/{it.number}",
            "additions": lambda: 0, "deletions": lambda: 0, "baseRefName": lambda: it.base, "headRefName": lambda: it.head,
            "isDraft": lambda: it.draft, "mergedAt": lambda: _iso(it.merged_at),
        }
        return {n: values[n]() for n in names}

    def _list(self, opts: dict[str, Any], prs: bool) -> list[Issue]:
        repo = self._repo(opts)
        state = opts.get("--state", "open")
        allowed = ("open", "closed", "all") + (("merged",) if prs else ())
        if state not in allowed:
            raise _Usage(f'invalid argument "{state}" for "-s, --state" flag: valid values are {{{"|".join(allowed)}}}')
        limit = opts.get("--limit", 30)
        if limit < 1:
            raise _Usage(f"invalid limit: {limit}")
        query = parse_query(opts.get("--search", ""))
        items = [i for i in repo.issues(prs) if query.matches(i)]
        if state == "merged":
            items = [i for i in items if i.merged_at]
        elif state != "all":
            items = [i for i in items if i.state == state]
        for name in opts.get("--label", []):
            items = [i for i in items if name.lower() in [x.lower() for x in i.labels]]
        if opts.get("--author"):
            a = LOGIN if opts["--author"] == "@me" else opts["--author"]
            items = [i for i in items if i.author.lower() == a.lower()]
        if opts.get("--assignee"):
            a = LOGIN if opts["--assignee"] == "@me" else opts["--assignee"]
            items = [i for i in items if a.lower() in [x.lower() for x in i.assignees]]
        if prs and opts.get("--draft"):
            items = [i for i in items if i.draft]
        if prs and opts.get("--head"):
            items = [i for i in items if i.head == opts["--head"]]
        return query.order(items)[:limit]

    # ------------------------------------------------------------------ issue
    def issue_list(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        names = self._fields(opts, ISSUE_FIELDS)
        repo = self._repo(opts)
        items = self._list(opts, prs=False)
        if names is not None:
            return self._emit([self._issue_fields(repo, i, names) for i in items], opts)
        # no match: nothing on stdout and exit 0 (gh prints "no open issues match…" only on a terminal)
        return "".join(f"{i.number}\t{i.state.upper()}\t{i.title}\t{', '.join(i.labels)}\t{_iso(i.updated)}\n" for i in items), "", 0

    def issue_view(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        repo = self._repo(opts, pos)
        it = self.st.item(repo, self._number(pos))
        names = self._fields(opts, ISSUE_FIELDS)
        if names is not None:
            return self._emit(self._issue_fields(repo, it, names), opts)
        if opts.get("--comments"):
            out = []
            for c in it.comments:
                out.append(f"author:\t{c.author}\nassociation:\t{'member' if c.author == repo.maintainer else 'none'}\n"
                           f"edited:\tfalse\nstatus:\tnone\n--\n{c.body}\n--\n")
            return "".join(out), "", 0
        state = it.pr_state if it.is_pr else it.state.upper()
        return (f"title:\t{it.title}\nstate:\t{state}\nauthor:\t{it.author}\nlabels:\t{', '.join(it.labels)}\n"
                f"comments:\t{len(it.comments)}\nassignees:\t{', '.join(it.assignees)}\nprojects:\t\nmilestone:\t\n"
                f"number:\t{it.number}\n--\n{it.body}\n"), "", 0

    def _body(self, opts: dict[str, Any]) -> str | None:
        if "--body-file" not in opts:
            return opts.get("--body")
        name = opts["--body-file"]
        if name == "-" or self.ctx is None:
            raise _Usage("--body-file - (standard input) is not supported by the simulator's gh; give a file or --body")
        try:
            return self.ctx.resolve(name).read_text(encoding="utf-8")
        except (OSError, ValueError) as e:
            raise _Usage(f"open {name}: no such file or directory" if isinstance(e, FileNotFoundError) else f"{name}: {e}") from None

    def issue_create(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        repo = self._repo(opts)
        title, body = opts.get("--title"), self._body(opts)
        if title is None or body is None:
            raise _Usage("must provide `--title` and `--body` (or `--body-file` or `--template`) when not running interactively")
        try:
            it = self.st.create_issue(repo, title, body, opts.get("--label", []), opts.get("--assignee", []))
        except GitHubError as e:
            raise _Usage(str(e)) from None
        return f"{WEB}/{repo.full_name}/issues/{it.number}\n", "", 0

    def issue_close(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        repo = self._repo(opts, pos)
        it = self.st.item(repo, self._number(pos))
        if it.is_pr:
            raise _Usage(f"{repo.full_name}#{it.number} is a pull request; use `gh pr close`")
        reason = opts.get("--reason")
        if reason is not None and reason not in ("completed", "not planned"):
            raise _Usage(f'invalid argument "{reason}" for "-r, --reason" flag: valid values are {{completed|not planned}}')
        if it.state == "closed":
            return "", f"! Issue {repo.full_name}#{it.number} ({it.title}) is already closed\n", 0
        if opts.get("--comment"):
            self.st.comment(it, opts["--comment"])
        self.st.set_state(it, "closed", "not_planned" if reason == "not planned" else "completed")
        return "", f"✓ Closed issue {repo.full_name}#{it.number} ({it.title})\n", 0

    def issue_reopen(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        repo = self._repo(opts, pos)
        it = self.st.item(repo, self._number(pos))
        if it.state == "open":
            return "", f"! Issue {repo.full_name}#{it.number} ({it.title}) is already open\n", 0
        if opts.get("--comment"):
            self.st.comment(it, opts["--comment"])
        self.st.set_state(it, "open")
        return "", f"✓ Reopened issue {repo.full_name}#{it.number} ({it.title})\n", 0

    def issue_comment(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        repo = self._repo(opts, pos)
        it = self.st.item(repo, self._number(pos))
        body = self._body(opts)
        if body is None:
            raise _Usage("--body or --body-file required when not running interactively")
        try:
            c = self.st.comment(it, body)
        except GitHubError as e:
            raise _Usage(str(e)) from None
        return f"{WEB}/{repo.full_name}/issues/{it.number}#issuecomment-{c.id}\n", "", 0

    def issue_edit(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        repo = self._repo(opts, pos)
        it = self.st.item(repo, self._number(pos))
        if not any(k in opts for k in ("--title", "--body", "--add-label", "--remove-label", "--add-assignee")):
            raise _Usage("field to edit flag required when not running interactively")
        try:
            self.st.edit(repo, it, opts.get("--title"), opts.get("--body"), opts.get("--add-label", []),
                         opts.get("--remove-label", []), opts.get("--add-assignee", []))
        except GitHubError as e:
            raise _Usage(str(e)) from None
        return f"{WEB}/{repo.full_name}/issues/{it.number}\n", "", 0

    # ------------------------------------------------------------------ pr, repo, label
    def pr_list(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        names = self._fields(opts, PR_FIELDS)
        repo = self._repo(opts)
        items = self._list(opts, prs=True)
        if names is not None:
            return self._emit([self._issue_fields(repo, i, names) for i in items], opts)
        return "".join(f"{i.number}\t{i.title}\t{i.head}\t{'DRAFT' if i.draft and i.state == 'open' else i.pr_state}\t"
                       f"{_iso(i.created_at)}\n" for i in items), "", 0

    def pr_view(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        repo = self._repo(opts, pos)
        it = self.st.item(repo, self._number(pos, "pr"), pr=True)
        names = self._fields(opts, PR_FIELDS)
        if names is not None:
            return self._emit(self._issue_fields(repo, it, names), opts)
        return (f"title:\t{it.title}\nstate:\t{'DRAFT' if it.draft and it.state == 'open' else it.pr_state}\nauthor:\t{it.author}\n"
                f"labels:\t{', '.join(it.labels)}\nassignees:\t{', '.join(it.assignees)}\nreviewers:\t\nprojects:\t\n"
                f"milestone:\t\nnumber:\t{it.number}\nurl:\t{WEB}/{repo.full_name}/pull/{it.number}\nadditions:\t0\n"
                f"deletions:\t0\nauto-merge:\tdisabled\n--\n{it.body}\n"), "", 0

    def repo_view(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        if not pos:
            raise _Usage("failed to run git: fatal: not a git repository (or any of the parent directories): .git\n"
                         "(name the repository: gh repo view OWNER/REPO)")
        repo = self._repo({"--repo": pos[0]})
        names = self._fields(opts, REPO_FIELDS)
        if names is not None:
            values = {"createdAt": _iso(repo.created_at), "defaultBranchRef": {"name": "main"}, "description": repo.description,
                      "forkCount": repo.forks, "id": repo_json(repo)["node_id"], "isPrivate": False,
                      "languages": [{"node": {"name": repo.language}, "size": 1}], "licenseInfo": {"key": "mit", "name": "MIT License",
                                                                                                    "nickname": ""},
                      "name": repo.name, "nameWithOwner": repo.full_name, "owner": {"id": user_json(repo.owner)["node_id"], "login": repo.owner},
                      "primaryLanguage": {"name": repo.language}, "stargazerCount": repo.stars,
                      "url": f"{WEB}/{repo.full_name}", "visibility": "PUBLIC"}
            return self._emit({n: values[n] for n in names}, opts)
        return f"name:\t{repo.full_name}\ndescription:\t{repo.description}\n--\n{repo.readme}", "", 0

    def label_list(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        repo = self._repo(opts)
        labels = [lab for lab in repo.labels if opts.get("--search", "").lower() in lab.name.lower()][: opts.get("--limit", 30)]
        names = self._fields(opts, ("color", "createdAt", "description", "id", "isDefault", "name", "updatedAt", "url"))
        if names is not None:
            rows = []
            for lab in labels:
                j = label_json(repo, lab)
                v = {"color": lab.color, "createdAt": _iso(repo.created_at), "description": lab.description, "id": j["node_id"],
                     "isDefault": j["default"], "name": lab.name, "updatedAt": _iso(repo.created_at),
                     "url": f"{WEB}/{repo.full_name}/labels/{quote(lab.name)}"}
                rows.append({n: v[n] for n in names})
            return self._emit(rows, opts)
        return "".join(f"{lab.name}\t{lab.description}\t#{lab.color}\n" for lab in labels), "", 0

    # ------------------------------------------------------------------ api
    def api(self, opts: dict[str, Any], pos: list[str]) -> tuple[str, str, int]:
        if not pos:
            raise _Usage("accepts 1 arg(s), received 0\n\nUsage:  gh api <endpoint> [flags]")
        endpoint = pos[0].lstrip("/")
        fields: dict[str, Any] = {}
        for raw in opts.get("--field", []) + opts.get("--raw-field", []) + opts.get("-F", []):
            k, eq, v = raw.partition("=")
            if not eq:
                raise _Usage(f'field "{raw}" requires a value separated by an \'=\' sign')
            if k.endswith("[]"):
                fields.setdefault(k[:-2], []).append(v)
            else:
                fields[k] = v
        method = opts.get("--method", "POST" if fields else "GET").upper()
        u = urlparse("https://api.github.com/" + endpoint)
        q = {k: v[-1] for k, v in parse_qs(u.query).items()}
        if method == "GET" and fields:
            q.update({k: (",".join(v) if isinstance(v, list) else v) for k, v in fields.items()})
        status, _ct, body = self.app.rest(method, u.path, q, json.dumps(fields) if method != "GET" and fields else None, authed=True)
        if status >= 400:
            msg = json.loads(body).get("message", "error")
            return body, f"gh: {msg} (HTTP {status})\n", 1
        if opts.get("--jq"):
            return _jq(opts["--jq"], body)
        return json.dumps(json.loads(body), ensure_ascii=False, separators=(",", ":")) + "\n", "", 0


def _jq(expr: str, text: str) -> tuple[str, str, int]:
    """gh's ``--jq``: filter the JSON with jq, strings printed raw."""
    jq = shutil.which("jq")
    if jq is None:
        return "", "gh: --jq needs the jq program, which this machine lacks\n", 1
    res = subprocess.run([jq, "-r", "-c", expr], input=text, capture_output=True, text=True, timeout=10)
    if res.returncode != 0:
        return "", res.stderr.replace("jq: error", "failed to parse jq expression", 1) or f"jq exited with {res.returncode}\n", 1
    return res.stdout, "", 0
