"""The GitHub simulator's REST API (``https://api.github.com/…``, for ``curl`` and ``gh api``): the
JSON shapes of users, labels, issues, pull requests, comments and repositories (``gh``'s ``--json``
reuses their ids), and :func:`rest_response`, which answers one request from the store."""

from __future__ import annotations

import base64
import json
from datetime import datetime
from typing import Any
from urllib.parse import quote

from .github_model import LOGIN, Comment, GitHubError, GitHubStore, Issue, Label, Repo
from .github_query import Query, parse_query

WEB = "https://github.com"
API = "https://api.github.com"


def iso_time(t: datetime | None) -> str | None:
    """``t`` as GitHub's JSON writes times (``2025-01-31T09:05:00Z``)."""
    return t.strftime("%Y-%m-%dT%H:%M:%SZ") if t is not None else None


def node_id(prefix: str, n: int) -> str:
    """A GraphQL node id (``I_kwDO…``) for object number ``n`` of the kind ``prefix`` names."""
    return prefix + base64.b64encode(f"{n:010d}".encode()).decode().rstrip("=")


def user_json(login: str) -> dict[str, Any]:
    uid = 1000 + sum(ord(c) * (i + 1) for i, c in enumerate(login))
    return {"login": login, "id": uid, "node_id": node_id("U_kgDO", uid), "avatar_url": f"https://avatars.githubusercontent.com/u/{uid}?v=4",
            "url": f"{API}/users/{login}", "html_url": f"{WEB}/{login}", "type": "User", "site_admin": False}


def label_json(repo: Repo, lab: Label) -> dict[str, Any]:
    lid = repo.rid * 100 + repo.labels.index(lab)
    return {"id": lid, "node_id": node_id("LA_kwDO", lid), "url": f"{API}/repos/{repo.full_name}/labels/{quote(lab.name)}",
            "name": lab.name, "color": lab.color, "default": lab.name in ("bug", "enhancement", "documentation", "question"),
            "description": lab.description}


def issue_json(repo: Repo, it: Issue) -> dict[str, Any]:
    base = f"{API}/repos/{repo.full_name}/issues/{it.number}"
    iid = repo.rid * 1000 + it.number
    out: dict[str, Any] = {
        "url": base, "repository_url": f"{API}/repos/{repo.full_name}", "labels_url": base + "/labels{/name}",
        "comments_url": base + "/comments", "events_url": base + "/events",
        "html_url": f"{WEB}/{repo.full_name}/{'pull' if it.is_pr else 'issues'}/{it.number}",
        "id": iid, "node_id": node_id("PR_kwDO" if it.is_pr else "I_kwDO", iid), "number": it.number, "title": it.title,
        "user": user_json(it.author), "labels": [label_json(repo, lab) for n in it.labels if (lab := repo.label(n))],
        "state": it.state, "locked": False, "assignee": user_json(it.assignees[0]) if it.assignees else None,
        "assignees": [user_json(a) for a in it.assignees], "milestone": None, "comments": len(it.comments),
        "created_at": iso_time(it.created_at), "updated_at": iso_time(it.updated), "closed_at": iso_time(it.closed_at),
        "author_association": "MEMBER" if it.author == repo.maintainer else "NONE", "active_lock_reason": None,
        "body": it.body, "state_reason": it.state_reason, "timeline_url": base + "/timeline"}
    if it.is_pr:
        out["draft"] = it.draft
        out["pull_request"] = {"url": f"{API}/repos/{repo.full_name}/pulls/{it.number}",
                               "html_url": f"{WEB}/{repo.full_name}/pull/{it.number}",
                               "diff_url": f"{WEB}/{repo.full_name}/pull/{it.number}.diff", "merged_at": iso_time(it.merged_at)}
    return out


def pull_json(repo: Repo, it: Issue) -> dict[str, Any]:
    out = issue_json(repo, it)
    out.pop("pull_request")
    out.update({"url": f"{API}/repos/{repo.full_name}/pulls/{it.number}", "html_url": f"{WEB}/{repo.full_name}/pull/{it.number}",
                "merged_at": iso_time(it.merged_at), "merged": it.merged_at is not None,
                "head": {"label": f"{repo.owner}:{it.head}", "ref": it.head}, "base": {"label": f"{repo.owner}:{it.base}", "ref": it.base}})
    return out


def comment_json(repo: Repo, it: Issue, c: Comment) -> dict[str, Any]:
    return {"url": f"{API}/repos/{repo.full_name}/issues/comments/{c.id}",
            "html_url": f"{WEB}/{repo.full_name}/issues/{it.number}#issuecomment-{c.id}", "id": c.id,
            "node_id": node_id("IC_kwDO", c.id), "user": user_json(c.author), "created_at": iso_time(c.created_at),
            "updated_at": iso_time(c.created_at), "author_association": "MEMBER" if c.author == repo.maintainer else "NONE",
            "body": c.body}


def repo_json(repo: Repo) -> dict[str, Any]:
    open_items = sum(1 for i in repo.items.values() if i.state == "open")
    return {"id": repo.rid, "node_id": node_id("R_kgDO", repo.rid), "name": repo.name, "full_name": repo.full_name,
            "private": False, "owner": user_json(repo.owner), "html_url": f"{WEB}/{repo.full_name}",
            "description": repo.description, "fork": False, "url": f"{API}/repos/{repo.full_name}",
            "created_at": iso_time(repo.created_at), "language": repo.language, "stargazers_count": repo.stars,
            "watchers_count": repo.stars, "forks_count": repo.forks, "open_issues_count": open_items, "has_issues": True,
            "topics": repo.topics, "default_branch": "main", "visibility": "public",
            "license": {"key": "mit", "name": "MIT License", "spdx_id": "MIT"}}


def _api_error(status: int, message: str, doc: str = "https://docs.github.com/rest") -> tuple[int, str, str]:
    return status, "application/json", json.dumps({"message": message, "documentation_url": doc, "status": str(status)}, indent=2) + "\n"


def _per_page(q: dict[str, str]) -> int:
    try:
        return max(1, min(100, int(q.get("per_page", "30") or 30)))
    except ValueError:
        return 30


def rest_response(hub: GitHubStore, method: str, path: str, q: dict[str, str], data: str | None,
                  authed: bool) -> tuple[int, str, str]:
    """The REST API's answer (status, content type, body) to ``method path?q`` with body ``data``: GET for
    anyone; POST/PATCH (create, comment, edit, close) only when signed in (``authed``: ``gh api``)."""
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
            repo = hub.repo(query.repo)
            items = query.order([i for i in repo.issues(None) if query.matches(i)])
            return dump({"total_count": len(items), "incomplete_results": False,
                         "items": [issue_json(repo, i) for i in items[:_per_page(q)]]})
        if len(parts) < 3 or parts[0] != "repos":
            return _api_error(404, "Not Found")
        try:
            repo = hub.repo(f"{parts[1]}/{parts[2]}")
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
                it = hub.create_issue(repo, str(body.get("title", "")), str(body.get("body", "") or ""),
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
            it = hub.item(repo, int(rest[1]), pr=True if rest[0] == "pulls" else None)
            if len(rest) == 3 and rest[2] == "comments":
                if method == "POST":
                    c = hub.comment(it, str(body.get("body", "")))
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
                        hub.set_state(it, body["state"], body.get("state_reason"))
                    hub.edit(repo, it, title=body.get("title"), body=body.get("body"))
                    if "labels" in body:
                        it.labels = []
                        hub.edit(repo, it, add_labels=[str(x) for x in body["labels"]])
                return dump((pull_json if rest[0] == "pulls" else issue_json)(repo, it))
        return _api_error(404, "Not Found")
    except GitHubError as e:
        return _api_error(404 if e.status == 404 else 422, "Not Found" if e.status == 404 else f"Validation Failed: {e}")
    except ValueError as e:
        return _api_error(400, str(e))
