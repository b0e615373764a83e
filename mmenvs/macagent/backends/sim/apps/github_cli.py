"""The GitHub simulator's ``gh`` command (non-interactive, as in a script): ``issue list/view/create/
close/reopen/comment/edit``, ``pr list/view``, ``repo view``, ``label list``, ``api`` (through the
REST API) and ``auth status``, with gh's flags, ``--json``/``--jq`` output and error messages. The
repository is ``-R OWNER/REPO`` or the github.com remote of the git clone the shell is in."""

from __future__ import annotations

import errno
import json
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any, Callable
from urllib.parse import parse_qs, quote, urlparse

from mmenvs.core.confined import ConfinementError

from .base import CommandContext
from .github_model import LOGIN, GitHubError, GitHubStore, Issue, Repo
from .github_query import parse_query
from .home_io import MAX_TEXT_BYTES, error_text, read_text
from .github_rest import WEB, iso_time, issue_json, label_json, node_id, repo_json, rest_response, user_json


def run_gh(hub: GitHubStore, args: list[str], ctx: CommandContext) -> tuple[str, str, int]:
    """Run ``gh args…`` in the shell folder ``ctx`` gives: (stdout, stderr, exit status)."""
    try:
        return _Gh(hub, _origin_repo(ctx), ctx).run(args)
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
    files = ctx.backend.current_desktop().home_files
    home = Path(ctx.backend.home)
    for folder in (here, *here.parents):
        if not folder.is_relative_to(home):
            break  # never the host's folders above the episode's home (lexical: nothing is resolved)
        config = folder / ".git" / "config"
        try:  # through the layer: a symlinked .git or config is not read
            text = read_text(files, config, limit=MAX_TEXT_BYTES)
        except OSError:
            continue
        remotes = re.findall(r'\[remote "([^"]+)"\][^\[]*?url\s*=\s*(\S+)', text)
        urls = [u for name, u in sorted(remotes, key=lambda r: r[0] != "origin")]
        for url in urls:
            m = re.search(r"github\.com[:/]([^/\s]+/[^/\s]+?)(?:\.git)?/?$", url)
            if m:
                return m.group(1)
        return ""
    return None


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

    def __init__(self, hub: GitHubStore, origin: str | None = None, ctx: CommandContext | None = None) -> None:
        self.ctx = ctx
        self.st = hub
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
            return [{"id": node_id("IC_kwDO", c.id), "author": {"login": c.author},
                     "authorAssociation": "MEMBER" if c.author == repo.maintainer else "NONE", "body": c.body,
                     "createdAt": iso_time(c.created_at), "includesCreatedEdit": False, "isMinimized": False, "minimizedReason": "",
                     "reactionGroups": [], "url": f"{WEB}/{repo.full_name}/issues/{it.number}#issuecomment-{c.id}",
                     "viewerDidAuthor": c.author == LOGIN} for c in it.comments]

        values: dict[str, Callable[[], Any]] = {
            "assignees": lambda: [{"id": user_json(a)["node_id"], "login": a, "name": ""} for a in it.assignees],
            "author": lambda: person(it.author), "body": lambda: it.body, "closed": lambda: it.state == "closed",
            "closedAt": lambda: iso_time(it.closed_at), "comments": comments, "createdAt": lambda: iso_time(it.created_at),
            "id": lambda: issue_json(repo, it)["node_id"], "isPinned": lambda: False, "labels": labels, "milestone": lambda: None,
            "number": lambda: it.number, "projectCards": lambda: [], "projectItems": lambda: [], "reactionGroups": lambda: [],
            "state": lambda: it.pr_state if it.is_pr else it.state.upper(),
            "stateReason": lambda: (it.state_reason or "").upper(), "title": lambda: it.title,
            "updatedAt": lambda: iso_time(it.updated),
            "url": lambda: f"{WEB}/{repo.full_name}/{'pull' if it.is_pr else 'issues'}/{it.number}",
            "additions": lambda: 0, "deletions": lambda: 0, "baseRefName": lambda: it.base, "headRefName": lambda: it.head,
            "isDraft": lambda: it.draft, "mergedAt": lambda: iso_time(it.merged_at),
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
        return "".join(f"{i.number}\t{i.state.upper()}\t{i.title}\t{', '.join(i.labels)}\t{iso_time(i.updated)}\n" for i in items), "", 0

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
            path = self.ctx.resolve(name)
            return read_text(self.ctx.backend.current_desktop().home_files, path, limit=MAX_TEXT_BYTES)
        except ConfinementError as e:
            raise _Usage(f"open {name}: no such file or directory" if e.errno == errno.ENOENT
                         else f"{name}: {error_text(e)}") from None
        except (OSError, ValueError) as e:
            raise _Usage(f"{name}: {error_text(e)}") from None

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
                       f"{iso_time(i.created_at)}\n" for i in items), "", 0

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
            values = {"createdAt": iso_time(repo.created_at), "defaultBranchRef": {"name": "main"}, "description": repo.description,
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
                v = {"color": lab.color, "createdAt": iso_time(repo.created_at), "description": lab.description, "id": j["node_id"],
                     "isDefault": j["default"], "name": lab.name, "updatedAt": iso_time(repo.created_at),
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
        status, _ct, body = rest_response(self.st, method, u.path, q, json.dumps(fields) if method != "GET" and fields else None,
                                          authed=True)
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
