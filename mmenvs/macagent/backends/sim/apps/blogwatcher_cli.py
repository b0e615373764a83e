"""``blogwatcher`` in the simulated Mac: Hyaxia's blog tracker (``add``, ``remove``, ``blogs``, ``scan``,
``articles``, ``read``, ``unread``, ``read-all``) over the offline web pages the task declares.

Its state is what the real tool keeps: a SQLite database at ``~/.blogwatcher/blogwatcher.db`` (tables
``blogs`` and ``articles``), so a checkpoint (or the agent, with ``python3 -c 'import sqlite3 …'``)
can read it. The database is read through the home's confined layer into memory, changed there and
written back (a symlink or special file in its place is refused); the work runs in a short-lived child
process under the action deadline and a memory bound, since the file is the agent's to craft.

``scan`` fetches each blog's feed (``--feed-url``, else the one the blog's page announces with
``<link rel="alternate" type="application/rss+xml|atom+xml">``, else the common paths ``/feed``,
``/rss``, ``/feed.xml``, ``/rss.xml``, ``/atom.xml``, ``/index.xml``) from the task's ``web_pages``
and parses RSS 2.0, RSS 1.0 (RDF) and Atom; with no feed it falls back to HTML scraping when the
blog has a ``--scrape-selector`` (tag, ``.class``, ``#id`` and ``tag.class`` parts, descendant
combinator). Output, prompts (``remove`` and ``read-all`` ask ``[y/N]`` on stdin unless ``-y``) and
exit codes follow the real tool: messages such as ``Error: Blog 'x' not found`` on stdout with status
1, argument errors on stderr with status 1.

Bounds: a feed or page of at most 4 MB, 10,000 items per feed, 1,000 blogs, a database of at most
32 MB; XML with entity declarations is refused (no entity expansion)."""

from __future__ import annotations

import html.parser
import re
import sqlite3
import xml.etree.ElementTree as ET
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime
from pathlib import Path
from typing import Any
from urllib.parse import urljoin

from .base import App, CommandContext
from .cli_support import CliExit, check_deadline, fetch_url, layer, read_file, run_guarded, write_file
from .safari import _database_from, _database_image  # SQLite file images in memory (Python 3.10 too)

DB_PATH = ".blogwatcher/blogwatcher.db"
MAX_DB_BYTES = 32 * 2**20
MAX_FEED_BYTES = 4 * 2**20
MAX_ITEMS = 10_000
MAX_BLOGS = 1_000
VERSION = "0.0.7 (sim)"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS blogs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    url TEXT NOT NULL UNIQUE,
    feed_url TEXT,
    scrape_selector TEXT,
    last_scanned TIMESTAMP
);
CREATE TABLE IF NOT EXISTS articles (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    blog_id INTEGER NOT NULL,
    title TEXT NOT NULL,
    url TEXT NOT NULL UNIQUE,
    published_date TIMESTAMP,
    discovered_date TIMESTAMP,
    is_read BOOLEAN DEFAULT 0,
    categories TEXT DEFAULT '',
    FOREIGN KEY (blog_id) REFERENCES blogs(id)
);
"""

_HELP = """BlogWatcher - Track blog articles and detect new posts.

Usage:
  blogwatcher [command]

Available Commands:
  add         Add a new blog to track.
  remove      Remove a blog from tracking.
  blogs       List all tracked blogs.
  scan        Scan blogs for new articles.
  articles    List articles.
  read        Mark an article as read.
  read-all    Mark all unread articles as read.
  unread      Mark an article as unread.
  help        Help about any command

Flags:
  -h, --help                help for blogwatcher
      --user-agent string   Custom HTTP User-Agent for feed/scrape requests
  -v, --version             version for blogwatcher

Use "blogwatcher [command] --help" for more information about a command.
"""

# command → (usage line, short help, {flag: (short, takes value, help)}, (min args, max args))
_COMMANDS: dict[str, tuple[str, str, dict[str, tuple[str, bool, str]], tuple[int, int]]] = {
    "add": ("add <name> <url>", "Add a new blog to track.",
            {"--feed-url": ("", True, "RSS/Atom feed URL (auto-discovered if not provided)"),
             "--scrape-selector": ("", True, "CSS selector for HTML scraping fallback")}, (2, 2)),
    "remove": ("remove <name>", "Remove a blog from tracking.", {"--yes": ("-y", False, "Skip confirmation prompt")}, (1, 1)),
    "blogs": ("blogs", "List all tracked blogs.", {}, (0, 0)),
    "scan": ("scan [blog_name]", "Scan blogs for new articles.",
             {"--silent": ("-s", False, "Only output 'scan done' when complete"),
              "--workers": ("-w", True, "Number of concurrent workers when scanning all blogs (default 8)")}, (0, 1)),
    "articles": ("articles", "List articles.",
                 {"--all": ("-a", False, "Show all articles (including read)"),
                  "--blog": ("-b", True, "Filter by blog name"), "--category": ("-c", True, "Filter by category")}, (0, 0)),
    "read": ("read <article_id>", "Mark an article as read.", {}, (1, 1)),
    "read-all": ("read-all", "Mark all unread articles as read.",
                 {"--blog": ("-b", True, "Only mark articles from this blog"),
                  "--yes": ("-y", False, "Skip confirmation prompt")}, (0, 0)),
    "unread": ("unread <article_id>", "Mark an article as unread.", {}, (1, 1)),
}


def _command_help(cmd: str) -> str:
    usage, short, flags, _n = _COMMANDS[cmd]
    lines = [short, "", "Usage:", f"  blogwatcher {usage}" + (" [flags]" if flags else ""), "", "Flags:"]
    for name, (short_flag, value, text) in flags.items():
        left = (f"{short_flag}, " if short_flag else "    ") + name + (" string" if value else "")
        lines.append(f"  {left:<26}{text}")
    lines.append(f"  {'-h, --help':<26}help for {cmd}")
    lines += ["", "Global Flags:", f"  {'    --user-agent string':<26}Custom HTTP User-Agent for feed/scrape requests", ""]
    return "\n".join(lines)


def _parse(cmd: str, args: list[str]) -> tuple[list[str], dict[str, Any]]:
    _usage, _short, flags, (lo, hi) = _COMMANDS[cmd]
    by_short = {s: n for n, (s, _v, _t) in flags.items() if s}
    pos: list[str] = []
    opts: dict[str, Any] = {}
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            pos += args[i + 1:]
            break
        if a.startswith("-") and a != "-":
            name, eq, inline = a.partition("=")
            name = by_short.get(name, name)
            if name == "--user-agent":
                if not eq:
                    if i + 1 >= len(args):
                        raise CliExit("flag needs an argument: --user-agent\n")
                    i += 1
                i += 1
                continue
            if name not in flags:
                what = f"unknown shorthand flag: '{a[1:2]}' in {a}" if not a.startswith("--") else f"unknown flag: {name}"
                raise CliExit(what + "\n")
            takes = flags[name][1]
            if takes:
                if eq:
                    opts[name] = inline
                elif i + 1 < len(args):
                    i += 1
                    opts[name] = args[i]
                else:
                    raise CliExit(f"flag needs an argument: {a}\n")
            else:
                opts[name] = True
            i += 1
            continue
        pos.append(a)
        i += 1
    if not lo <= len(pos) <= hi:
        if lo == hi:
            raise CliExit(f"accepts {lo} arg(s), received {len(pos)}\n")
        raise CliExit(f"accepts at most {hi} arg(s), received {len(pos)}\n")
    return pos, opts


# ---------------------------------------------------------------------------------------------- feeds
class _FeedError(Exception):
    pass


def _local(tag: str) -> str:
    return tag.rsplit("}", 1)[-1].lower() if isinstance(tag, str) else ""


def _text(el: ET.Element | None) -> str:
    return "".join(el.itertext()).strip() if el is not None else ""


def _child(el: ET.Element, *names: str) -> ET.Element | None:
    for c in el:
        if _local(c.tag) in names:
            return c
    return None


def _parse_date(text: str) -> str | None:
    """A feed date (RFC 822 or ISO 8601) as ISO text in UTC, or None."""
    text = text.strip()
    if not text:
        return None
    try:
        d = parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        try:
            d = datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return None
    if d.tzinfo is None:
        d = d.replace(tzinfo=timezone.utc)
    return d.astimezone(timezone.utc).replace(tzinfo=None).isoformat(sep=" ")


def parse_feed(body: str) -> list[dict[str, Any]]:
    """The items of an RSS 2.0, RSS 1.0 or Atom document: title, url, published (ISO or None), categories."""
    if re.search(r"<!ENTITY", body[:65536], re.I):
        raise _FeedError("failed to parse feed: XML entity declarations are not allowed")
    try:
        root = ET.fromstring(body.lstrip("\ufeff").lstrip())
    except ET.ParseError as e:
        raise _FeedError(f"failed to parse feed: {e}") from None
    kind = _local(root.tag)
    if kind == "rss":
        channel = _child(root, "channel")
        items = [c for c in (channel if channel is not None else []) if _local(c.tag) == "item"]
    elif kind == "rdf":
        items = [c for c in root if _local(c.tag) == "item"]
    elif kind == "feed":
        items = [c for c in root if _local(c.tag) == "entry"]
    else:
        raise _FeedError("failed to parse feed: Failed to detect feed type")
    out = []
    for item in items[:MAX_ITEMS]:
        check_deadline()
        title = " ".join(_text(_child(item, "title")).split())
        if kind == "feed":
            link = ""
            for c in item:
                if _local(c.tag) == "link" and c.get("rel", "alternate") == "alternate" and c.get("href"):
                    link = c.get("href", "")
                    break
            date = _text(_child(item, "published")) or _text(_child(item, "updated"))
            cats = [c.get("term", "") for c in item if _local(c.tag) == "category" and c.get("term")]
        else:
            link = _text(_child(item, "link")) or (item.get("{http://www.w3.org/1999/02/22-rdf-syntax-ns#}about") or "")
            date = _text(_child(item, "pubdate")) or _text(_child(item, "date")) or _text(_child(item, "updated"))
            cats = [_text(c) for c in item if _local(c.tag) in ("category", "subject") and _text(c)]
        link = link.strip()
        if not title or not link:
            continue
        out.append({"title": title, "url": link, "published": _parse_date(date), "categories": cats})
    return out


class _Node:
    __slots__ = ("tag", "attrs", "children", "parent", "text")

    def __init__(self, tag: str, attrs: dict[str, str], parent: "_Node | None") -> None:
        self.tag, self.attrs, self.parent = tag, attrs, parent
        self.children: list[_Node] = []
        self.text: list[str] = []


_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


class _Tree(html.parser.HTMLParser):
    """A forgiving element tree of an HTML page (enough for link discovery and simple selectors)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = _Node("#root", {}, None)
        self.cur = self.root
        self.count = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.count += 1
        if self.count % 2048 == 0:
            check_deadline()
        node = _Node(tag, {k: v or "" for k, v in attrs}, self.cur)
        self.cur.children.append(node)
        if tag not in _VOID:
            self.cur = node

    def handle_endtag(self, tag: str) -> None:
        n: _Node | None = self.cur
        while n is not None and n is not self.root and n.tag != tag:
            n = n.parent
        if n is not None and n is not self.root:
            self.cur = n.parent or self.root

    def handle_data(self, data: str) -> None:
        n: _Node | None = self.cur
        while n is not None:
            n.text.append(data)
            n = n.parent if n.tag in ("a", "span", "em", "strong", "b", "i") else None


def _tree(body: str) -> _Tree:
    t = _Tree()
    t.feed(body)
    t.close()
    return t


def _walk(node: _Node):
    stack = list(reversed(node.children))
    while stack:
        n = stack.pop()
        yield n
        stack.extend(reversed(n.children))


def _matches(node: _Node, part: str) -> bool:
    m = re.fullmatch(r"([a-zA-Z][a-zA-Z0-9-]*|\*)?((?:[.#][A-Za-z0-9_-]+)*)", part)
    if m is None:
        return False
    tag, rest = m.group(1), m.group(2)
    if tag and tag != "*" and node.tag != tag.lower():
        return False
    classes = node.attrs.get("class", "").split()
    for kind, name in re.findall(r"([.#])([A-Za-z0-9_-]+)", rest):
        if kind == "." and name not in classes:
            return False
        if kind == "#" and node.attrs.get("id") != name:
            return False
    return True


def select(root: _Node, selector: str) -> list[_Node]:
    """The nodes matching a descendant selector of simple parts (``article h2 a``, ``.post-title a``)."""
    parts = selector.split()
    if not parts or any(re.fullmatch(r"([a-zA-Z][a-zA-Z0-9-]*|\*)?((?:[.#][A-Za-z0-9_-]+)*)", p) is None or p == ""
                        for p in parts):
        raise _FeedError(f"unsupported selector {selector!r}: use tag, .class, #id and descendant parts")
    found = []
    for n in _walk(root):
        if not _matches(n, parts[-1]):
            continue
        k, anc = len(parts) - 2, n.parent
        while k >= 0 and anc is not None:
            if _matches(anc, parts[k]):
                k -= 1
            anc = anc.parent
        if k < 0:
            found.append(n)
    return found


# ---------------------------------------------------------------------------------------------- the tool
class _Store:
    """The database, loaded from the home into memory; ``save()`` writes it back."""

    def __init__(self, ctx: CommandContext) -> None:
        self.ctx = ctx
        self.path = Path(ctx.backend.home) / DB_PATH
        files = layer(ctx)
        raw = b""
        if files.kind(self.path) is not None:
            raw = read_file(ctx, self.path, MAX_DB_BYTES, "blogwatcher", "~/" + DB_PATH)
        try:
            self.db = _database_from(raw)
            self.db.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.DatabaseError as e:
            raise CliExit(f"Error: {e} (~/{DB_PATH} is not a blogwatcher database)\n") from None
        try:
            self.db.executescript(_SCHEMA)
            cols = {r[1] for r in self.db.execute("PRAGMA table_info(articles)")}
            if "categories" not in cols:
                self.db.execute("ALTER TABLE articles ADD COLUMN categories TEXT DEFAULT ''")
        except sqlite3.DatabaseError as e:
            raise CliExit(f"Error: {e} (~/{DB_PATH} is not a blogwatcher database)\n") from None
        self.db.row_factory = sqlite3.Row

    def save(self) -> None:
        self.db.commit()
        write_file(self.ctx, self.path, _database_image(self.db), parents=True)

    def blog(self, name: str) -> sqlite3.Row | None:
        return self.db.execute("SELECT * FROM blogs WHERE name = ?", (name,)).fetchone()


def _now(ctx: CommandContext) -> str:
    return ctx.backend.current_desktop().now.replace(microsecond=0).isoformat(sep=" ")


def _confirm(stdin: str, prompt: str) -> tuple[bool, str]:
    """(answered yes, the prompt as printed); no answer on stdin is the real tool's EOF error."""
    if not stdin:
        raise CliExit("EOF\n", 1, prompt + " [y/N]: ")
    answer = stdin.splitlines()[0].strip().lower() if stdin.splitlines() else ""
    return answer in ("y", "yes"), prompt + " [y/N]: "


class BlogwatcherTool(App):
    """``blogwatcher`` (see the module docstring). Its state is the database file in the home."""

    name = "blogwatcher"
    bundle_id = "com.github.hyaxia.blogwatcher"
    in_dock = False
    text_editing = False
    shell_commands = {"blogwatcher": True}  # remove / read-all ask for confirmation on stdin

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_guarded("blogwatcher", _main, argv[1:], stdin, ctx, child=True)


def _main(args: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
    if not args or args[0] in ("-h", "--help") or args == ["help"]:
        return _HELP, "", 0
    if args[0] in ("-v", "--version"):
        return VERSION + "\n", "", 0
    if args[0] == "help":
        return (_command_help(args[1]) if args[1] in _COMMANDS else _HELP), "", 0
    # a leading global flag (--user-agent) before the command
    while args and args[0].startswith("--user-agent"):
        args = args[1:] if "=" in args[0] else args[2:]
    if not args:
        return _HELP, "", 0
    cmd, rest = args[0], args[1:]
    if cmd not in _COMMANDS:
        raise CliExit(f'unknown command "{cmd}" for "blogwatcher"\n\nRun \'blogwatcher --help\' for usage.\n')
    if "-h" in rest or "--help" in rest:
        return _command_help(cmd), "", 0
    pos, opts = _parse(cmd, rest)
    store = _Store(ctx)
    out, code, changed = _COMMAND_FUNCS[cmd](store, pos, opts, stdin, ctx)
    if changed:
        store.save()
    return out, "", code


def _add(st: _Store, pos: list[str], opts: dict[str, Any], stdin: str, ctx: CommandContext) -> tuple[str, int, bool]:
    name, url = pos
    if st.blog(name) is not None:
        return f"Error: Blog with name '{name}' already exists\n", 1, False
    if st.db.execute("SELECT 1 FROM blogs WHERE url = ?", (url,)).fetchone():
        return f"Error: Blog with URL '{url}' already exists\n", 1, False
    if st.db.execute("SELECT count(*) FROM blogs").fetchone()[0] >= MAX_BLOGS:
        return f"Error: the simulated blogwatcher tracks at most {MAX_BLOGS} blogs\n", 1, False
    st.db.execute("INSERT INTO blogs (name, url, feed_url, scrape_selector) VALUES (?, ?, ?, ?)",
                  (name, url, opts.get("--feed-url") or None, opts.get("--scrape-selector") or None))
    return f"Added blog '{name}'\n", 0, True


def _remove(st: _Store, pos: list[str], opts: dict[str, Any], stdin: str, ctx: CommandContext) -> tuple[str, int, bool]:
    name = pos[0]
    prompt = ""
    if not opts.get("--yes"):
        ok, prompt = _confirm(stdin, f"Remove blog '{name}' and all its articles?")
        if not ok:
            return prompt, 0, False
    blog = st.blog(name)
    if blog is None:
        return prompt + f"Error: Blog '{name}' not found\n", 1, False
    st.db.execute("DELETE FROM articles WHERE blog_id = ?", (blog["id"],))
    st.db.execute("DELETE FROM blogs WHERE id = ?", (blog["id"],))
    return prompt + f"Removed blog '{name}'\n", 0, True


def _blogs(st: _Store, pos: list[str], opts: dict[str, Any], stdin: str, ctx: CommandContext) -> tuple[str, int, bool]:
    rows = st.db.execute("SELECT * FROM blogs ORDER BY name").fetchall()
    if not rows:
        return "No blogs tracked yet. Use 'blogwatcher add' to add one.\n", 0, False
    out = [f"Tracked blogs ({len(rows)}):", ""]
    for b in rows:
        out += [f"  {b['name']}", f"    URL: {b['url']}"]
        if b["feed_url"]:
            out.append(f"    Feed: {b['feed_url']}")
        if b["scrape_selector"]:
            out.append(f"    Selector: {b['scrape_selector']}")
        if b["last_scanned"]:
            out.append(f"    Last scanned: {str(b['last_scanned'])[:16]}")
        out.append("")
    return "\n".join(out) + "\n", 0, False


def _fetch(ctx: CommandContext, url: str, what: str = "feed") -> str:
    got = fetch_url(ctx, url)
    if got is None:
        host = url.split("://", 1)[-1].split("/", 1)[0]
        raise _FeedError(f'failed to fetch {what}: Get "{url}": dial tcp: lookup {host}: no such host')
    status, body = got
    if not 200 <= status < 300:
        raise _FeedError(f"failed to fetch {what}: status {status}")
    if len(body) > MAX_FEED_BYTES:
        raise _FeedError(f"failed to fetch {what}: the response has {len(body):,} characters, more than the "
                         f"{MAX_FEED_BYTES:,} the simulated blogwatcher reads")
    return body


def _discover(ctx: CommandContext, blog_url: str) -> str:
    try:
        page = _fetch(ctx, blog_url)
    except _FeedError:
        return ""
    tree = _tree(page)
    links = [n for n in _walk(tree.root) if n.tag == "link" and "alternate" in n.attrs.get("rel", "").lower().split()]
    for kind in ("application/rss+xml", "application/atom+xml", "application/feed+json", "application/xml", "text/xml"):
        for n in links:
            if n.attrs.get("type", "").lower() == kind and n.attrs.get("href", "").strip():
                return urljoin(blog_url, n.attrs["href"].strip())
    for path in ("/feed", "/feed/", "/rss", "/rss/", "/feed.xml", "/rss.xml", "/atom.xml", "/index.xml"):
        cand = urljoin(blog_url, path)
        try:
            if parse_feed(_fetch(ctx, cand)) is not None:
                return cand
        except _FeedError:
            continue
    return ""


def _scan_blog(st: _Store, blog: sqlite3.Row, ctx: CommandContext) -> dict[str, Any]:
    articles: list[dict[str, Any]] = []
    source, error = "none", ""
    feed_url = blog["feed_url"] or ""
    if not feed_url:
        feed_url = _discover(ctx, blog["url"])
        if feed_url:
            st.db.execute("UPDATE blogs SET feed_url = ? WHERE id = ?", (feed_url, blog["id"]))
    if feed_url:
        try:
            articles = parse_feed(_fetch(ctx, feed_url))
            source = "rss"
        except _FeedError as e:
            error = str(e)
    if not articles and blog["scrape_selector"]:
        try:
            tree = _tree(_fetch(ctx, blog["url"], "page"))
            scraped = []
            for n in select(tree.root, blog["scrape_selector"])[:MAX_ITEMS]:
                a = n if n.tag == "a" else next((c for c in _walk(n) if c.tag == "a" and c.attrs.get("href")), None)
                if a is None or not a.attrs.get("href"):
                    continue
                title = " ".join("".join(n.text).split()) or " ".join("".join(a.text).split())
                if title:
                    scraped.append({"title": title, "url": urljoin(blog["url"], a.attrs["href"]), "published": None,
                                    "categories": []})
            articles, source, error = scraped, "scraper", ""
        except _FeedError as e:
            error = f"RSS: {error}; Scraper: {e}" if error else str(e)
    seen: dict[str, dict[str, Any]] = {}
    for a in articles:
        seen.setdefault(a["url"], a)
    now = _now(ctx)
    new = 0
    for url, a in seen.items():
        check_deadline()
        if st.db.execute("SELECT 1 FROM articles WHERE url = ?", (url,)).fetchone():
            continue
        st.db.execute("INSERT INTO articles (blog_id, title, url, published_date, discovered_date, is_read, categories) "
                      "VALUES (?, ?, ?, ?, ?, 0, ?)", (blog["id"], a["title"], url, a["published"], now,
                                                       ",".join(a["categories"])))
        new += 1
    st.db.execute("UPDATE blogs SET last_scanned = ? WHERE id = ?", (now, blog["id"]))
    return {"name": blog["name"], "new": new, "found": len(seen), "source": source, "error": error}


def _scan_lines(r: dict[str, Any]) -> list[str]:
    out = [f"  {r['name']}"]
    if r["error"]:
        out.append(f"    Error: {r['error']}")
    elif r["source"] == "none":
        out.append("    No feed or scraper configured")
    else:
        out.append(f"    Source: {'RSS' if r['source'] == 'rss' else 'HTML'} | Found: {r['found']} | New: {r['new']}")
    return out


def _scan(st: _Store, pos: list[str], opts: dict[str, Any], stdin: str, ctx: CommandContext) -> tuple[str, int, bool]:
    silent = bool(opts.get("--silent"))
    if "--workers" in opts:
        try:
            int(opts["--workers"])
        except ValueError:
            raise CliExit(f"invalid argument \"{opts['--workers']}\" for \"-w, --workers\" flag: "
                          "strconv.ParseInt: parsing: invalid syntax\n") from None
    if pos:
        blog = st.blog(pos[0])
        if blog is None:
            return f"Error: Blog '{pos[0]}' not found\n", 1, False
        r = _scan_blog(st, blog, ctx)
        return ("scan done\n" if silent else "\n".join(_scan_lines(r)) + "\n"), 0, True
    blogs = st.db.execute("SELECT * FROM blogs ORDER BY name").fetchall()
    if not blogs:
        return "No blogs tracked yet. Use 'blogwatcher add' to add one.\n", 0, False
    lines = [f"Scanning {len(blogs)} blog(s)...", ""]
    total = 0
    for b in blogs:
        r = _scan_blog(st, b, ctx)
        total += r["new"]
        lines += _scan_lines(r)
    lines += ["", f"Found {total} new article(s) total!" if total else "No new articles found."]
    return ("scan done\n" if silent else "\n".join(lines) + "\n"), 0, True


def _article_rows(st: _Store, unread_only: bool, blog_name: str | None, category: str | None) -> list[sqlite3.Row]:
    sql, params = "SELECT a.*, b.name AS blog_name FROM articles a JOIN blogs b ON b.id = a.blog_id WHERE 1=1", []
    if unread_only:
        sql += " AND a.is_read = 0"
    if blog_name:
        blog = st.blog(blog_name)
        if blog is None:
            raise CliExit(f"Error: Blog '{blog_name}' not found\n", 1, f"Error: Blog '{blog_name}' not found\n")
        sql += " AND a.blog_id = ?"
        params.append(blog["id"])
    rows = st.db.execute(sql + " ORDER BY a.discovered_date DESC, a.published_date DESC, a.id DESC", params).fetchall()
    if category:
        want = category.lower()
        rows = [r for r in rows if want in [c.strip().lower() for c in (r["categories"] or "").split(",")]]
    return rows


def _articles(st: _Store, pos: list[str], opts: dict[str, Any], stdin: str, ctx: CommandContext) -> tuple[str, int, bool]:
    show_all = bool(opts.get("--all"))
    try:
        rows = _article_rows(st, not show_all, opts.get("--blog"), opts.get("--category"))
    except CliExit as e:
        return e.stdout, 1, False
    if not rows:
        return ("No articles found.\n" if show_all else "No unread articles!\n"), 0, False
    out = [f"{'All articles' if show_all else 'Unread articles'} ({len(rows)}):", ""]
    for r in rows:
        out += [f"  [{r['id']}] {'[read]' if r['is_read'] else '[new]'} {r['title']}", f"       Blog: {r['blog_name']}",
                f"       URL: {r['url']}"]
        if r["published_date"]:
            out.append(f"       Published: {str(r['published_date'])[:10]}")
        out.append("")
    return "\n".join(out) + "\n", 0, False


def _article_id(text: str) -> int:
    if not re.fullmatch(r"[+-]?\d{1,18}", text):
        raise CliExit(f"invalid article id: {text}\n")
    return int(text)


def _read(st: _Store, pos: list[str], opts: dict[str, Any], stdin: str, ctx: CommandContext) -> tuple[str, int, bool]:
    aid = _article_id(pos[0])
    row = st.db.execute("SELECT is_read FROM articles WHERE id = ?", (aid,)).fetchone()
    if row is None:
        return f"Error: Article {aid} not found\n", 1, False
    if row["is_read"]:
        return f"Article {aid} is already marked as read.\n", 0, False
    st.db.execute("UPDATE articles SET is_read = 1 WHERE id = ?", (aid,))
    return f"Marked article {aid} as read\n", 0, True


def _unread(st: _Store, pos: list[str], opts: dict[str, Any], stdin: str, ctx: CommandContext) -> tuple[str, int, bool]:
    aid = _article_id(pos[0])
    row = st.db.execute("SELECT is_read FROM articles WHERE id = ?", (aid,)).fetchone()
    if row is None:
        return f"Error: Article {aid} not found\n", 1, False
    if not row["is_read"]:
        return f"Article {aid} is already marked as unread.\n", 0, False
    st.db.execute("UPDATE articles SET is_read = 0 WHERE id = ?", (aid,))
    return f"Marked article {aid} as unread\n", 0, True


def _read_all(st: _Store, pos: list[str], opts: dict[str, Any], stdin: str, ctx: CommandContext) -> tuple[str, int, bool]:
    blog_name = opts.get("--blog")
    try:
        rows = _article_rows(st, True, blog_name, None)
    except CliExit as e:
        return e.stdout, 1, False
    if not rows:
        return "No unread articles to mark as read.\n", 0, False
    prompt = ""
    if not opts.get("--yes"):
        scope = f"from '{blog_name}'" if blog_name else "all blogs"
        ok, prompt = _confirm(stdin, f"Mark {len(rows)} article(s) {scope} as read?")
        if not ok:
            return prompt, 0, False
    st.db.executemany("UPDATE articles SET is_read = 1 WHERE id = ?", [(r["id"],) for r in rows])
    return prompt + f"Marked {len(rows)} article(s) as read\n", 0, True


_COMMAND_FUNCS = {"add": _add, "remove": _remove, "blogs": _blogs, "scan": _scan, "articles": _articles, "read": _read,
                  "read-all": _read_all, "unread": _unread}
