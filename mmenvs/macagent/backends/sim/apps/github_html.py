"""The GitHub simulator's website (``https://github.com/…``, shown in Safari): the dashboard, a
repository's page with its README, the issue and pull-request lists (filtered with ``?q=``, 25 a
page), one issue or pull request with its comments, and the labels; relative times as GitHub
writes them (:func:`rel_time`)."""

from __future__ import annotations

import html
import re
from dataclasses import replace
from datetime import datetime
from urllib.parse import quote_plus

from .github_model import LOGIN, GitHubError, GitHubStore, Issue, Repo
from .github_query import Query, parse_query

PAGE_SIZE = 25  # issues per page on the website


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


def web_page(hub: GitHubStore, path: str, q: dict[str, str]) -> tuple[int, str, str]:
    """github.com pages: the dashboard, a repository, its issues and pull requests (filtered with ``?q=``), one
    issue or pull request, and its labels."""
    parts = [p for p in path.split("/") if p]
    if not parts:
        lis = "".join(f'<li><a href="/{r.full_name}">{html.escape(r.full_name)}</a> — {html.escape(r.description)}</li>'
                      for r in hub.repos.values())
        return _page("GitHub", f"<h1>Dashboard</h1><p>Signed in as {LOGIN}</p><h2>Repositories</h2><ul>{lis}</ul>")
    if len(parts) < 2:
        return _not_found()
    try:
        repo = hub.repo(f"{parts[0]}/{parts[1]}")
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
        return _list_page(hub, repo, head, rest[0] == "pulls", q)
    if rest[0] in ("issues", "pull") and len(rest) == 2 and rest[1].isdigit():
        it = repo.items.get(int(rest[1]))
        if it is None:
            return _not_found()
        return _item_page(hub, repo, head, it)
    return _not_found()


def _list_page(hub: GitHubStore, repo: Repo, head: str, prs: bool, q: dict[str, str]) -> tuple[int, str, str]:
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
        when = rel_time(i.created_at, hub.now)
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


def _item_page(hub: GitHubStore, repo: Repo, head: str, it: Issue) -> tuple[int, str, str]:
    now = hub.now
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


def _qlabel(name: str) -> str:
    return f'"{name}"' if " " in name else name


def _with_state(query: Query, state: str) -> Query:
    return replace(query, state=state)


def _requery(text: str, state: str) -> str:
    out = re.sub(r"\b(is|state):(open|closed)\b", f"is:{state}", text)
    return out if out != text or f"is:{state}" in out else f"{text} is:{state}"
