"""``clawhub`` (OpenClaw's skill registry CLI) served offline: the registry is the task's declared web
pages (``web_pages``) under ``https://clawhub.ai/api/v1/``, the same routes the real CLI calls:

* ``…/skills/<slug>``: ``{"skill": {"slug", "displayName", "summary", "tags": {"latest": V}},
  "latestVersion": {"version": V}, "owner": {"handle"}}`` — a skill exists when this page does;
* ``…/skills/<slug>/versions``: ``{"items": [{"version", "createdAt", "changelog"}]}`` (optional);
* ``…/skills/<slug>/versions/<V>``: ``{"version": {"version": V, "files": [{"path", "size"}]}}``
  (optional: without it a version has the one file ``SKILL.md``);
* ``…/skills/<slug>/file?path=<P>&version=<V>``: the file's text (for the latest version also
  ``…/file?path=<P>``);
* ``…/search?q=<query>``: ``{"results": [{"slug", "displayName", "summary", "version", "score"}]}``
  (optional: without it ``search`` ranks the declared skills itself).

Commands: ``search QUERY… [--limit N]``, ``explore [--limit N] [--json]``, ``inspect SLUG [--version V]
[--versions] [--files] [--file P] [--json]``, ``install SLUG [--version V] [--force]``, ``uninstall SLUG
--yes``, ``list``, ``update SLUG|--all [--version V] [--force]``; global ``--workdir DIR`` (default: the
shell's folder, else the OpenClaw workspace ``~/.openclaw/workspace`` when it exists and the folder has no
installs), ``--dir DIR`` (install folder under the workdir, default ``skills``), ``--registry URL``,
``--no-input``. ``install`` writes ``<workdir>/<dir>/<slug>/`` with the version's files,
``<skill>/.clawhub/origin.json`` and the lockfile ``<workdir>/.clawhub/lock.json``, which ``list`` reads.
Publishing, login and stars need the live registry: they fail as the real CLI does offline.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path, PurePosixPath
from typing import Any
from urllib.parse import quote, urlparse

from .base import App, CommandContext
from .home_io import MAX_TEXT_BYTES, entry_kind
from .skill_args import CliError, Option, parse, run_guarded, write_home_file

VERSION = "0.7.0"
REGISTRY = "https://clawhub.ai"
SLUG = re.compile(r"^[a-z0-9][a-z0-9._-]{0,127}$")
#: bounds of one install: files of a skill version and bytes of one file
MAX_FILES = 200
MAX_FILE_BYTES = 1_000_000

_HELP = """Usage: clawhub [options] [command]

ClawHub CLI - install, update, search, and publish agent skills.

Options:
  -V, --cli-version          output the CLI version
  --workdir <dir>            Working directory (default: cwd)
  --dir <dir>                Skills directory (relative to workdir, default: skills)
  --site <url>               Site base URL (for browser login)
  --registry <url>           Registry API base URL
  --no-input                 Disable prompts
  -h, --help                 display help for command

Commands:
  login [options]            Log in (opens browser or stores token)
  whoami                     Validate token
  search [options] <query...>  Vector search skills
  explore [options]          Browse latest updated skills from the registry
  inspect [options] <slug>   Fetch skill metadata and files without installing
  install [options] <slug>   Install into <dir>/<slug>
  uninstall [options] <slug> Uninstall a skill
  list                       List installed skills (from lockfile)
  update [options] [slug]    Update installed skills
  publish [options] <path>   Publish skill from folder
  help [command]             display help for command
"""


def _err(text: str, code: int = 1) -> CliError:
    return CliError(f"✖ {text}", code)


class ClawHubTool(App):
    """``clawhub``: no window; its state is files (the lockfile, the installed skills)."""

    name = "clawhub"
    bundle_id = "ai.clawhub.cli"
    in_dock = False
    text_editing = False
    shell_commands = {"clawhub": False}

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_guarded("clawhub", lambda: _ClawHub(self.desktop, ctx).run(argv[1:]), ctx)


_GLOBAL = [Option(("--workdir",), True), Option(("--dir",), True), Option(("--site",), True),
           Option(("--registry",), True), Option(("--no-input",)), Option(("-h", "--help")),
           Option(("-V", "--cli-version"))]


class _ClawHub:
    def __init__(self, desktop: Any, ctx: CommandContext) -> None:
        self.desk, self.ctx = desktop, ctx
        self.files = desktop.home_files
        self.registry = REGISTRY

    # ------------------------------------------------------------------ plumbing
    def run(self, args: list[str]) -> tuple[str, str, int]:
        cmd = next((a for a in args if not a.startswith("-")), None)
        # values of the global options are not commands
        for i, a in enumerate(args):
            if a in ("--workdir", "--dir", "--site", "--registry") and i + 1 < len(args) and args[i + 1] == cmd:
                later = [x for x in args[i + 2:] if not x.startswith("-")]
                cmd = later[0] if later else None
                break
        if cmd is None:
            if any(a in ("-V", "--cli-version") for a in args):
                return VERSION + "\n", "", 0
            return _HELP, "", 0
        rest = list(args)
        rest.remove(cmd)
        table = {"search": self.search, "explore": self.explore, "inspect": self.inspect, "install": self.install,
                 "i": self.install, "uninstall": self.uninstall, "list": self.list, "update": self.update,
                 "help": lambda a: (_HELP, "", 0)}
        if cmd in ("login", "auth", "whoami", "logout", "publish", "sync", "star", "unstar", "delete", "undelete",
                   "hide", "unhide", "transfer", "skill", "package"):
            raise _err(f"{cmd}: the registry's account features are not available offline "
                       "(the simulator serves the registry from the task's pages: search, explore, inspect, "
                       "install, uninstall, list and update work)")
        if cmd not in table:
            raise CliError(f"error: unknown command '{cmd}'\n(Did you mean one of search, install, list?)", 1)
        return table[cmd](rest)

    def _parse(self, args: list[str], extra: list[Option], usage: str) -> Any:
        p = parse(args, _GLOBAL + extra, unknown=lambda n: CliError(f"error: unknown option '{n}'", 1),
                  missing=lambda n: CliError(f"error: option '{n} <value>' argument missing", 1))
        if p.flag("help"):
            raise CliError("", 0, f"Usage: clawhub {usage}\n")
        reg = p.get("registry")
        if reg:
            u = urlparse(reg)
            if u.scheme not in ("http", "https") or not u.netloc:
                raise _err(f"invalid registry URL {reg!r}: expected http(s)://host")
            self.registry = reg.rstrip("/")
        return p

    def _get(self, path: str) -> str | None:
        """The declared page at ``<registry><path>`` (also under clawhub.com, the CLI's older default)."""
        safari = self.desk.apps["Safari"]
        bases = [self.registry] + ([b for b in ("https://clawhub.ai", "https://clawhub.com") if b != self.registry]
                                   if self.registry in ("https://clawhub.ai", "https://clawhub.com") else [])
        for base in bases:
            found = safari._lookup(base + path)  # noqa: SLF001 - the task's offline web, as curl reads it
            if found is not None:
                return found[1]
        return None

    def _json(self, path: str) -> Any:
        text = self._get(path)
        if text is None:
            return None
        try:
            return json.loads(text)
        except ValueError:
            raise _err(f"the registry answered {self.registry}{path} with something that is not JSON") from None

    @staticmethod
    def _slug(text: str) -> str:
        if not SLUG.match(text or ""):
            raise _err(f"Invalid slug: {text}" if text else "Slug required")
        return text

    def _meta(self, slug: str) -> dict[str, Any]:
        data = self._json(f"/api/v1/skills/{quote(slug)}")
        if not isinstance(data, dict):
            raise _err(f"Skill not found: {slug}")
        return data

    @staticmethod
    def _latest(meta: dict[str, Any]) -> str:
        lv = meta.get("latestVersion") or {}
        skill = meta.get("skill") or {}
        v = lv.get("version") if isinstance(lv, dict) else None
        v = v or ((skill.get("tags") or {}).get("latest") if isinstance(skill, dict) else None)
        if not isinstance(v, str) or not v:
            raise _err("the registry's skill page names no latest version")
        return v

    def _versions(self, slug: str, meta: dict[str, Any]) -> list[str]:
        data = self._json(f"/api/v1/skills/{quote(slug)}/versions")
        items = data.get("items") if isinstance(data, dict) else None
        out = [str(i["version"]) for i in items or [] if isinstance(i, dict) and i.get("version")]
        latest = self._latest(meta)
        return out if out else [latest]

    def _version_files(self, slug: str, version: str, latest: str) -> list[str]:
        data = self._json(f"/api/v1/skills/{quote(slug)}/versions/{quote(version)}")
        files = ((data or {}).get("version") or {}).get("files") if isinstance(data, dict) else None
        paths = [str(f["path"]) for f in files or [] if isinstance(f, dict) and f.get("path")] or ["SKILL.md"]
        if len(paths) > MAX_FILES:
            raise _err(f"version {version} lists {len(paths)} files; the simulator installs at most {MAX_FILES}")
        return paths

    def _file(self, slug: str, path: str, version: str, latest: str) -> str | None:
        # the CLI encodes the query as URLSearchParams does ("/" as %2F); a page declared with a plain "/" is found too
        for enc in dict.fromkeys((quote(path, safe=""), quote(path))):
            text = self._get(f"/api/v1/skills/{quote(slug)}/file?path={enc}&version={quote(version, safe='')}")
            if text is None and version == latest:
                text = self._get(f"/api/v1/skills/{quote(slug)}/file?path={enc}")
            if text is not None:
                return text
        return None

    def _workdir(self, p: Any) -> Path:
        if p.get("workdir"):
            return self.ctx.resolve(p.get("workdir"))
        here = self.ctx.resolve(".")
        if entry_kind(self.files, here / ".clawhub" / "lock.json") is None and entry_kind(self.files, here / "skills") is None:
            ws = self.desk.home / ".openclaw" / "workspace"
            if entry_kind(self.files, ws) == "dir":
                return ws
        return here

    def _install_root(self, p: Any, workdir: Path) -> Path:
        d = p.get("dir") or "skills"
        return self.ctx.resolve(d) if d.startswith(("/", "~")) else workdir / d

    def _lock_path(self, workdir: Path) -> Path:
        return workdir / ".clawhub" / "lock.json"

    def _lock(self, workdir: Path) -> dict[str, Any]:
        path = self._lock_path(workdir)
        if entry_kind(self.files, path) is None:
            return {"version": 1, "skills": {}}
        try:
            data = json.loads(self.files.read_bytes(path, limit=MAX_TEXT_BYTES))
        except ValueError:
            raise _err(f"{self.ctx.posix(path)}: the lockfile is not valid JSON") from None
        if not isinstance(data, dict) or not isinstance(data.get("skills"), dict):
            raise _err(f"{self.ctx.posix(path)}: the lockfile has no \"skills\" object")
        return data

    def _save_lock(self, workdir: Path, lock: dict[str, Any]) -> None:
        write_home_file(self.ctx, self._lock_path(workdir), (json.dumps(lock, indent=2) + "\n").encode())

    def _now_ms(self) -> int:
        return int(self.desk.now.timestamp() * 1000)

    # ------------------------------------------------------------------ commands
    def search(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [Option(("--limit",), True), Option(("--json",))], "search [options] <query...>")
        query = " ".join(p.args).strip()
        if not query:
            raise CliError("error: missing required argument 'query'", 1)
        limit = _limit(p.get("limit"), 200)
        data = self._json(f"/api/v1/search?q={quote(query)}")
        if isinstance(data, dict) and isinstance(data.get("results"), list):
            results = [r for r in data["results"] if isinstance(r, dict) and r.get("slug")]
        else:
            results = self._rank(query)
        results = results[:limit]
        if p.flag("json"):
            return json.dumps({"results": results}, indent=2) + "\n", "", 0
        if not results:
            return "No results.\n", "", 0
        return "".join(f"{r['slug']} v{r.get('version') or '?'}  {r.get('displayName') or r['slug']}"
                       f"  ({float(r.get('score') or 0):.3f})\n" for r in results), "", 0

    def _declared(self) -> list[dict[str, Any]]:
        prefix_a, out = "/api/v1/skills/", []
        for url in sorted(self.desk.apps["Safari"].pages):
            u = urlparse(url)
            host_ok = f"{u.scheme}://{u.netloc}" in (self.registry, "https://clawhub.ai", "https://clawhub.com")
            rest = u.path[len(prefix_a):] if u.path.startswith(prefix_a) else ""
            if host_ok and rest and "/" not in rest.strip("/") and not u.query:
                try:
                    meta = self._meta(rest.strip("/"))
                    out.append({"slug": rest.strip("/"), "meta": meta})
                except CliError:
                    continue
        return out

    def _rank(self, query: str) -> list[dict[str, Any]]:
        words = [w for w in re.split(r"[\s,/]+", query.lower()) if w]
        ranked = []
        for d in self._declared():
            skill = d["meta"].get("skill") or {}
            slug_tokens = set(re.split(r"[-_.]", d["slug"]))
            name = str(skill.get("displayName") or "").lower()
            summary = str(skill.get("summary") or "").lower()
            score = 0.0
            for w in words:
                score += 3.0 if w in slug_tokens else 1.5 if w in d["slug"] else 0.0
                score += 1.0 if w in name else 0.0
                score += 0.5 if w in summary else 0.0
            if score > 0:
                try:
                    version = self._latest(d["meta"])
                except CliError:
                    version = None
                ranked.append({"slug": d["slug"], "displayName": skill.get("displayName") or d["slug"],
                               "summary": skill.get("summary") or "", "version": version,
                               "score": round(score / (3.0 * len(words) + 1.5 * len(words)), 3)})
        return sorted(ranked, key=lambda r: (-r["score"], r["slug"]))

    def explore(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [Option(("--limit",), True), Option(("--sort",), True), Option(("--json",))],
                        "explore [options]")
        limit = _limit(p.get("limit", "25"), 200)
        items = []
        for d in self._declared()[:limit]:
            skill = d["meta"].get("skill") or {}
            items.append({"slug": d["slug"], "displayName": skill.get("displayName") or d["slug"],
                          "summary": skill.get("summary") or "", "latestVersion": {"version": self._latest(d["meta"])}})
        if p.flag("json"):
            return json.dumps({"items": items}, indent=2) + "\n", "", 0
        if not items:
            return "No skills found.\n", "", 0
        return "".join(f"{i['slug']}  v{i['latestVersion']['version']}  {i['summary'][:50]}\n" for i in items), "", 0

    def inspect(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [Option(("--version",), True), Option(("--tag",), True), Option(("--versions",)),
                               Option(("--limit",), True), Option(("--files",)), Option(("--file",), True),
                               Option(("--json",))], "inspect [options] <slug>")
        if len(p.args) != 1:
            raise CliError("error: missing required argument 'slug'" if not p.args else
                           f"error: too many arguments for 'inspect'. Expected 1 argument but got {len(p.args)}.", 1)
        slug = self._slug(p.args[0])
        meta = self._meta(slug)
        latest = self._latest(meta)
        version = p.get("version") or latest
        versions = self._versions(slug, meta)
        if version not in versions:
            raise _err(f"Version not found: {version}")
        if p.get("file"):
            text = self._file(slug, p.get("file"), version, latest)
            if text is None:
                raise _err(f"File not found: {p.get('file')}")
            return text if text.endswith("\n") else text + "\n", "", 0
        skill = meta.get("skill") or {}
        files = self._version_files(slug, version, latest) if p.flag("files") else None
        if p.flag("json"):
            out: dict[str, Any] = {"skill": skill, "latestVersion": meta.get("latestVersion"),
                                   "owner": meta.get("owner"), "version": {"version": version}}
            if p.flag("versions"):
                out["versions"] = [{"version": v} for v in versions]
            if files is not None:
                out["version"]["files"] = [{"path": f} for f in files]
            return json.dumps(out, indent=2) + "\n", "", 0
        lines = [f"{slug}  {skill.get('displayName') or slug}", f"Summary: {skill.get('summary') or ''}",
                 f"Owner: {(meta.get('owner') or {}).get('handle') or 'unknown'}", f"Latest: {latest}"]
        if p.flag("versions"):
            lines.append("Versions:")
            lines += [f"  {v}" for v in versions]
        if files is not None:
            lines.append(f"Files ({version}):")
            lines += [f"  {f}" for f in files]
        return "\n".join(lines) + "\n", "", 0

    def _install_files(self, slug: str, version: str, latest: str, target: Path) -> int:
        paths = self._version_files(slug, version, latest)
        texts: list[tuple[PurePosixPath, str]] = []
        for raw in paths:
            rel = PurePosixPath(raw)
            if rel.is_absolute() or ".." in rel.parts or not rel.parts or "\0" in raw:
                raise _err(f"the registry lists an unsafe file path {raw!r} for {slug}@{version}")
            text = self._file(slug, raw, version, latest)
            if text is None:
                raise _err(f"Version not found: {version} ({raw} of {slug}@{version} is not in the registry)")
            if len(text.encode("utf-8")) > MAX_FILE_BYTES:
                raise _err(f"{raw} of {slug}@{version} is larger than {MAX_FILE_BYTES:,} bytes")
            texts.append((rel, text))
        for rel, text in texts:
            write_home_file(self.ctx, target.joinpath(*rel.parts), text.encode("utf-8"))
        origin = {"version": 1, "registry": self.registry, "slug": slug, "installedVersion": version,
                  "installedAt": self._now_ms()}
        write_home_file(self.ctx, target / ".clawhub" / "origin.json", (json.dumps(origin, indent=2) + "\n").encode())
        return len(texts)

    def install(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [Option(("--version",), True), Option(("--tag",), True), Option(("--force",))],
                        "install [options] <slug>")
        if len(p.args) != 1:
            raise CliError("error: missing required argument 'slug'" if not p.args else
                           f"error: too many arguments for 'install'. Expected 1 argument but got {len(p.args)}.", 1)
        slug = self._slug(p.args[0])
        workdir = self._workdir(p)
        target = self._install_root(p, workdir) / slug
        if entry_kind(self.files, target) is not None and not p.flag("force"):
            raise _err(f"Already installed: {self.ctx.posix(target)} (use --force)")
        if entry_kind(self.files, target) not in (None, "dir"):
            raise _err(f"{self.ctx.posix(target)}: exists and is not a folder (a link or a file is not replaced)")
        meta = self._meta(slug)
        latest = self._latest(meta)
        version = p.get("version") or latest
        if version not in self._versions(slug, meta):
            raise _err(f"Version not found: {version}")
        if entry_kind(self.files, target) == "dir":
            self.files.rmtree(target)
        self._install_files(slug, version, latest, target)
        lock = self._lock(workdir)
        lock.setdefault("version", 1)
        lock["skills"][slug] = {"version": version, "installedAt": self._now_ms()}
        self._save_lock(workdir, lock)
        return f"✔ OK. Installed {slug} -> {self.ctx.posix(target)}\n", "", 0

    def uninstall(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [Option(("--yes", "-y"))], "uninstall [options] <slug>")
        if len(p.args) != 1:
            raise CliError("error: missing required argument 'slug'", 1)
        slug = self._slug(p.args[0])
        if not p.flag("yes"):
            raise _err("Pass --yes (no input)")
        workdir = self._workdir(p)
        lock = self._lock(workdir)
        target = self._install_root(p, workdir) / slug
        if slug not in lock["skills"] and entry_kind(self.files, target) is None:
            raise _err(f"Not installed: {slug}")
        if entry_kind(self.files, target) == "dir":
            self.files.rmtree(target)
        lock["skills"].pop(slug, None)
        self._save_lock(workdir, lock)
        return f"✔ Uninstalled {slug}\n", "", 0

    def list(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [Option(("--json",))], "list")
        lock = self._lock(self._workdir(p))
        skills = lock["skills"]
        if p.flag("json"):
            return json.dumps(skills, indent=2) + "\n", "", 0
        if not skills:
            return "No installed skills.\n", "", 0
        # in the lockfile's order, as the CLI prints it
        return "".join(f"{slug}  {(info.get('version') if isinstance(info, dict) else None) or 'latest'}\n"
                       for slug, info in skills.items()), "", 0

    def update(self, args: list[str]) -> tuple[str, str, int]:
        p = self._parse(args, [Option(("--all",)), Option(("--version",), True), Option(("--force",))],
                        "update [options] [slug]")
        workdir = self._workdir(p)
        lock = self._lock(workdir)
        if not p.flag("all") and not p.args:
            raise _err("Provide <slug> or --all")
        if p.flag("all") and p.args:
            raise _err("Use either <slug> or --all")
        if p.get("version") and not p.args:
            raise _err("--version requires a single <slug>")
        slugs = sorted(lock["skills"]) if p.flag("all") else [self._slug(p.args[0])]
        out = []
        for slug in slugs:
            if slug not in lock["skills"]:
                raise _err(f"Not installed: {slug}")
            meta = self._meta(slug)
            latest = self._latest(meta)
            version = p.get("version") or latest
            if version not in self._versions(slug, meta):
                raise _err(f"Version not found: {version}")
            have = str((lock["skills"][slug] or {}).get("version"))
            if have == version:
                out.append(f"{slug}: up to date ({version})")
                continue
            target = self._install_root(p, workdir) / slug
            if entry_kind(self.files, target) == "dir":
                if not p.flag("force") and not self._matches(slug, have, latest, target):
                    raise _err(f"{slug}: local changes (no match). Use --force to overwrite.")
                self.files.rmtree(target)
            self._install_files(slug, version, latest, target)
            lock["skills"][slug] = {"version": version, "installedAt": self._now_ms()}
            out.append(f"✔ {slug}: updated -> {version}")
        self._save_lock(workdir, lock)
        return "\n".join(out) + "\n", "", 0

    def _matches(self, slug: str, version: str, latest: str, target: Path) -> bool:
        """Whether the installed files are the registry's files of ``version`` (the CLI's fingerprint check)."""
        try:
            paths = self._version_files(slug, version, latest)
        except CliError:
            return False
        for raw in paths:
            want = self._file(slug, raw, version, latest)
            try:
                have = self.files.read_bytes(target.joinpath(*PurePosixPath(raw).parts), limit=MAX_FILE_BYTES)
            except OSError:
                return False
            if want is None or hashlib.sha256(have).digest() != hashlib.sha256(want.encode("utf-8")).digest():
                return False
        return True


def _limit(text: str | None, top: int) -> int:
    if text is None:
        return top
    if not str(text).isdigit() or not 1 <= int(text) <= top:
        raise _err(f"--limit must be a number from 1 to {top}, got {text!r}")
    return int(text)
