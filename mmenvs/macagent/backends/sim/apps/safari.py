"""Safari over an offline web: the task supplies pages (URL → HTML-ish text). Address bar
(URLs or search words), links, back/forward, history, bookmarks with folders (Add Bookmark sheet,
Add Bookmark Folder, a sidebar, drag onto folders) saved to ``~/Library/Safari/Bookmarks.plist``
in Safari's own format, visits kept in ``~/Library/Safari/History.db`` (Safari's SQLite schema, so
``sqlite3`` in the shell reads them as on a Mac), and page text for AppleScript (``text of document 1``)
and ``curl``."""

from __future__ import annotations

import errno
import html as html_mod
import os
import plistlib
import re
import sqlite3
import tempfile
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from html.parser import HTMLParser
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote_plus, unquote, unquote_plus, urlparse

from ....applescript.errors import ERR_APP_GENERIC, AppleScriptError
from ....applescript.model import STANDARD_COMMANDS, ObjectRef, Terminology
from ..menus import MenuItem, sep
from ..scripting import WINDOW_PROPERTIES, WindowScripting
from ..theme import Theme, font
from ..widgets import Box, Button, Custom, Label, ListView, MouseEvent, PopupButton, Row, TextField, Widget
from ..window import Window, text_prompt
from mmenvs.core.confined import ConfinedDir, ConfinementError

from .base import App, web_request
from .home_io import MAX_TEXT_BYTES, error_text, read_text, save_bytes

if TYPE_CHECKING:  # pragma: no cover
    from ..desktop import Desktop

SEARCH_URL = "https://www.google.com/search?q="
START_PAGE = "favorites://"

# ------------------------------------------------------------------------------------ pages


@dataclass
class Block:
    """A block of a page: ``kind`` is h1/h2/h3/p/li/pre/hr; ``spans`` are (text, href or None)."""

    kind: str
    spans: list[tuple[str, str | None]] = field(default_factory=list)

    @property
    def text(self) -> str:
        return "".join(t for t, _ in self.spans)


class _PageParser(HTMLParser):
    BLOCKS = {"h1", "h2", "h3", "h4", "p", "li", "pre", "div", "tr", "blockquote", "dt", "dd", "td", "th"}

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.title = ""
        self.blocks: list[Block] = []
        self.cur: Block | None = None
        self.href: str | None = None
        self.in_title = False
        self.skip = 0
        self.pre = 0

    def _flush(self) -> None:
        if self.cur is not None and self.cur.text.strip():
            if self.cur.kind != "pre":
                spans = [(re.sub(r"\s+", " ", t), h) for t, h in self.cur.spans]
                if spans:
                    spans[0] = (spans[0][0].lstrip(), spans[0][1])
                    spans[-1] = (spans[-1][0].rstrip(), spans[-1][1])
                self.cur.spans = [s for s in spans if s[0]]
            self.blocks.append(self.cur)
        self.cur = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skip += 1
        if tag == "title":
            self.in_title = True
        elif tag in self.BLOCKS:
            self._flush()
            kind = "h3" if tag == "h4" else ("p" if tag in ("div", "tr", "blockquote", "dt", "dd", "td", "th") else tag)
            self.cur = Block(kind)
            if tag == "pre":
                self.pre += 1
        elif tag == "br":
            if self.cur is not None and self.cur.kind == "pre":
                self.cur.spans.append(("\n", None))
            else:
                self._flush()
        elif tag == "hr":
            self._flush()
            self.blocks.append(Block("hr"))
        elif tag == "a":
            self.href = dict(attrs).get("href")

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skip = max(0, self.skip - 1)
        if tag == "title":
            self.in_title = False
        elif tag in self.BLOCKS:
            self._flush()
            if tag == "pre":
                self.pre = max(0, self.pre - 1)
        elif tag == "a":
            self.href = None

    def handle_data(self, data: str) -> None:
        if self.skip:
            return
        if self.in_title:
            self.title += data
            return
        if not data.strip() and self.cur is None:
            return
        if self.cur is None:
            self.cur = Block("p")
        self.cur.spans.append((data, self.href))

    def close(self) -> None:
        super().close()
        self._flush()


@dataclass
class Page:
    """A loaded page: final URL, title, blocks, plain text and source."""

    url: str
    title: str
    blocks: list[Block]
    source: str
    ok: bool = True  # False for Safari's error pages (History.db records them as unsuccessful loads)

    @property
    def text(self) -> str:
        return "\n".join(b.text for b in self.blocks if b.kind != "hr")


def parse_page(url: str, source: str) -> Page:
    p = _PageParser()
    p.feed(source)
    p.close()
    title = p.title.strip() or (p.blocks[0].text if p.blocks else url)
    return Page(url, html_mod.unescape(title), p.blocks, source)


def _host(url: str) -> str:
    try:
        return urlparse(url).netloc or url
    except ValueError:  # e.g. an unclosed IPv6 bracket: no host to name
        return url


_DEFAULT_PORTS = {"http": "80", "https": "443", "ws": "80", "wss": "443", "ftp": "21"}
# what WebKit leaves unescaped in a path / query (everything else, spaces and non-ASCII, is %-encoded)
_PATH_SAFE = "/:@!$&'()*+,;=-._~%"
_QUERY_SAFE = _PATH_SAFE + "?"
_MAX_URL = 8192  # a longer address is kept as typed (Safari shows it, the sim does not rewrite it)


def _remove_dot_segments(path: str) -> str:
    out: list[str] = []
    segs = path.split("/")
    for i, seg in enumerate(segs):
        last = i == len(segs) - 1
        if seg in (".", "%2e", "%2E"):
            if last:
                out.append("")
            continue
        if seg.lower() in ("..", ".%2e", "%2e.", "%2e%2e"):
            if len(out) > 1:
                out.pop()
            if last:
                out.append("")
            continue
        out.append(seg)
    text = "/".join(out)
    return text if text.startswith("/") else "/" + text


def normalize_url(url: str) -> str:
    """``url`` as Safari shows and stores it (WebKit follows the WHATWG URL standard): for http(s) and
    the other web schemes the scheme and host are lowercased (an international host becomes its
    punycode form), the default port is dropped, an empty path becomes ``/`` (``https://example.com`` →
    ``https://example.com/``), ``.``/``..`` segments are resolved, and spaces and non-ASCII characters
    in the path and query are %-encoded. ``file:`` URLs get the same path treatment; anything else
    (``about:blank``, ``favorites://``, text that is no URL) is left as it is."""
    from urllib.parse import quote

    if len(url) > _MAX_URL:
        return url
    m = re.match(r"^([a-zA-Z][a-zA-Z0-9+.-]*):(.*)$", url.strip(), re.S)
    if m is None:
        return url
    scheme, rest = m.group(1).lower(), m.group(2)
    if scheme not in _DEFAULT_PORTS and scheme != "file":
        return url
    rest = rest.replace("\\", "/")
    fragment = None
    if "#" in rest:
        rest, fragment = rest.split("#", 1)
    query = None
    if "?" in rest:
        rest, query = rest.split("?", 1)
    if not rest.startswith("//"):
        if scheme == "file":
            rest = "//" + rest if rest.startswith("/") else "///" + rest
        else:  # "https:example.com" is read as "https://example.com"
            rest = "//" + rest.lstrip("/")
    auth, _, path = rest[2:].lstrip("/" if scheme != "file" else "").partition("/")
    path = "/" + path
    userinfo, at, hostport = auth.rpartition("@")
    host, port = hostport, ""
    pm = re.match(r"^(\[[^\]]*\]|[^:]*)(?::(\d*))?$", hostport)
    if pm is not None:
        host, port = pm.group(1), pm.group(2) or ""
    host = host.lower()
    if host and not host.isascii():
        try:
            host = host.encode("idna").decode("ascii")
        except UnicodeError:
            return url  # no valid international name: Safari would not load it; keep what was typed
    if port:
        port = str(int(port)) if len(port) <= 5 else port
        if _DEFAULT_PORTS.get(scheme) == port:
            port = ""
    if scheme != "file" and not host:
        return url
    path = quote(_remove_dot_segments(path), safe=_PATH_SAFE)
    out = f"{scheme}://" + (userinfo + at if at else "") + host + (":" + port if port else "") + path
    if query is not None:
        out += "?" + quote(query, safe=_QUERY_SAFE)
    if fragment is not None:
        out += "#" + quote(fragment, safe=_QUERY_SAFE + "#")
    return out


# ------------------------------------------------------------------------------------ bookmarks


@dataclass
class Bookmark:
    title: str
    url: str | None = None  # None for a folder
    children: list["Bookmark"] = field(default_factory=list)

    @property
    def is_folder(self) -> bool:
        return self.url is None


class SafariApp(App):
    """Safari; ``pages`` is the offline web, ``bookmarks`` the bookmark tree, ``history`` the visits."""

    name = "Safari"
    bundle_id = "com.apple.Safari"
    open_suffixes = frozenset({".html", ".htm", ".webloc"})
    url_schemes = frozenset({"http", "https", "file"})

    def __init__(self, desktop: "Desktop") -> None:
        super().__init__(desktop)
        self.pages: dict[str, str] = {}
        self.bookmarks = Bookmark("", None, [Bookmark("Favorites"), Bookmark("Bookmarks Menu")])
        self.history: list[dict[str, Any]] = []
        self.show_sidebar = False
        self.scripting = SafariScripting(self)
        self.history_db = HistoryDB(desktop.home_files, desktop.home / "Library" / "Safari" / "History.db")

    def launch(self) -> None:
        """Safari keeps History.db from its first launch on; visits already in the file (a task's
        setup may write some with ``sqlite3``) are Safari's history."""
        super().launch()
        if not self.history:
            self.history = self.history_db.visits()
        self.history_db.ensure()

    # ------------------------------------------------------------------ web
    def resolve(self, text: str) -> str:
        """What the address bar does with typed text: a URL, a host name, or a web search."""
        t = text.strip()
        if not t:
            return START_PAGE
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*://", t) or t.startswith(("about:", "favorites:")):
            return t
        if " " not in t and re.match(r"^[\w-]+(\.[\w-]+)+(:\d+)?(/.*)?$", t):
            return "https://" + t
        return SEARCH_URL + quote_plus(t)

    def _lookup(self, url: str) -> tuple[str, str] | None:
        cands = [url]
        try:
            u = urlparse(url)
        except ValueError:  # no URL Python can split (``https://[::1``): only the exact text can match
            u = urlparse("")
        if u.scheme in ("http", "https"):
            other = "http" if u.scheme == "https" else "https"
            hosts = [u.netloc]
            hosts.append(u.netloc[4:] if u.netloc.startswith("www.") else "www." + u.netloc)
            for scheme in (u.scheme, other):
                for h in hosts:
                    base = f"{scheme}://{h}{u.path}" + (f"?{u.query}" if u.query else "")
                    cands += [base, base.rstrip("/"), base + "/" if not base.endswith("/") else base]
        for c in cands:
            if c in self.pages:
                return c, self.pages[c]
        return None

    def fetch(self, url: str) -> Page:
        """Load ``url`` from the offline web (or a file in the home folder, or a synthesized search)."""
        if url == START_PAGE:
            return Page(url, "Start Page", [Block("h1", [("Favourites", None)])] +
                        [Block("li", [(b.title, b.url)]) for b in self.bookmarks.children[0].children if not b.is_folder], "")
        try:
            urlparse(url).hostname  # noqa: B018 - raises for what no browser can parse (``https://[::1``)
        except ValueError:
            return self._error_page(url, f"Safari can’t open the page “{url[:200]}” because the address isn’t valid.")
        found = self._lookup(url)
        if found is not None:
            return parse_page(found[0], found[1])
        served = web_request(self.desktop, url, browser=True)  # a site an app serves (wttr.in, github.com, …)
        if served is not None:
            _status, ctype, body = served
            if "html" not in ctype:  # JSON and text show as plain text, as Safari shows them
                name = urlparse(url).path.rstrip("/").rsplit("/", 1)[-1] or _host(url)
                body = f"<title>{html_mod.escape(name)}</title><pre>{html_mod.escape(body)}</pre>"
            return parse_page(url, body)
        if url.startswith("file://"):
            path = self.desktop.backend.host_path(unquote(url[7:].split('?', 1)[0].split('#', 1)[0]))
            try:  # through the layer: a symlink, FIFO, folder or oversized file is an error page, never followed
                return parse_page(url, read_text(self.desktop.home_files, path, limit=MAX_TEXT_BYTES))
            except ConfinementError as e:
                if e.errno == errno.ENOENT:
                    return self._error_page(url, f"Safari can’t open the page “{url}” because the file doesn’t exist.")
                return self._error_page(url, f"Safari can’t open the page “{url}”: {error_text(e)}")
        if url.startswith(SEARCH_URL):
            return self._search_page(url, unquote_plus(url[len(SEARCH_URL):].split("&")[0]))
        return self._error_page(url, f"Safari can’t open the page “{url}” because Safari can’t find the server “{_host(url)}”.")

    def _error_page(self, url: str, msg: str) -> Page:
        return Page(url, "Failed to open page", [Block("h1", [("Safari Can’t Find the Server", None)]), Block("p", [(msg, None)])], "",
                    ok=False)

    def _search_page(self, url: str, query: str) -> Page:
        words = [w.lower() for w in query.split() if w]
        blocks = [Block("h2", [(f"Results for “{query}”", None)])]
        for purl, src in sorted(self.pages.items()):
            if purl.startswith(SEARCH_URL):
                continue
            page = parse_page(purl, src)
            hay = (page.title + " " + page.text).lower()
            if words and all(w in hay for w in words):
                blocks.append(Block("h3", [(page.title, purl)]))
                blocks.append(Block("p", [(purl, None)]))
                snippet = page.text.replace("\n", " ")[:160]
                blocks.append(Block("p", [(snippet, None)]))
        if len(blocks) == 1:
            blocks.append(Block("p", [("No results found.", None)]))
        return Page(url, f"{query} - Google Search", blocks, "")

    def navigate(self, win: Window, url: str, record: bool = True) -> Page:
        page = self.fetch(normalize_url(url))
        page.url = normalize_url(page.url)  # as Safari shows it: the address bar, URL of document, history
        st = win.state
        if record:
            st["back"] = st["back"] + ([st["url"]] if st["url"] else [])
            st["forward"] = []
        st["url"], st["title"], st["scroll"] = page.url, page.title, 0
        win.doc = page
        win.title = page.title
        if page.url != START_PAGE:
            self.history.append({"url": page.url, "title": page.title, "visit_time": self.desktop.now})
            self.history_db.record(page.url, page.title, self.desktop.now, page.ok, self.history)
        win.editors.pop("safari:address", None)
        win.focus_key = "safari:page"
        self.touch()
        win.touch()
        return page

    def can_open(self, path: Path) -> bool:
        """``open -a Safari`` shows any file (as a ``file://`` page)."""
        return True

    def open_file(self, path: Path) -> None:
        self.open_url("file://" + self.desktop.backend.posix_path(path))  # the path the agent sees, never the host one

    def open_url(self, url: str, new_window: bool = False) -> Window:
        front = None if new_window else (self._front_browser() or next((w for w in self.windows if _is_browser(w)), None))
        if front is None:
            front = self._open_window()
        self.navigate(front, url)
        self.desktop.raise_window(front)
        return front

    def go_back(self, win: Window) -> None:
        if win.state["back"]:
            prev = win.state["back"][-1]
            win.state["back"] = win.state["back"][:-1]
            win.state["forward"] = win.state["forward"] + [win.state["url"]]
            self.navigate(win, prev, record=False)

    def go_forward(self, win: Window) -> None:
        if win.state["forward"]:
            nxt = win.state["forward"][-1]
            win.state["forward"] = win.state["forward"][:-1]
            win.state["back"] = win.state["back"] + [win.state["url"]]
            self.navigate(win, nxt, record=False)

    # ------------------------------------------------------------------ bookmarks
    def folders(self) -> list[tuple[str, Bookmark]]:
        """(path, folder) for every bookmark folder, e.g. ("Favorites", …), ("agent task", …)."""
        out: list[tuple[str, Bookmark]] = []

        def walk(node: Bookmark, prefix: str) -> None:
            for c in node.children:
                if c.is_folder:
                    path = f"{prefix}{c.title}"
                    out.append((path, c))
                    walk(c, path + " ▸ ")

        walk(self.bookmarks, "")
        return out

    def find_folder(self, path: str) -> Bookmark:
        for p, f in self.folders():
            if p == path or f.title == path:
                return f
        raise ValueError(f"Safari has no bookmark folder {path!r}")

    def add_bookmark(self, url: str, title: str, folder: str = "Favorites") -> None:
        self.find_folder(folder).children.append(Bookmark(title, normalize_url(url)))
        self.bookmarks_changed()

    def add_folder(self, title: str, parent: str | None = None) -> Bookmark:
        node = self.bookmarks if parent is None else self.find_folder(parent)
        f = Bookmark(title)
        node.children.append(f)
        self.bookmarks_changed()
        return f

    def remove_bookmark(self, node: Bookmark) -> None:
        def walk(n: Bookmark) -> bool:
            if node in n.children:
                n.children.remove(node)
                return True
            return any(walk(c) for c in n.children if c.is_folder)

        if node in self.bookmarks.children[:2]:
            return  # Favorites and Bookmarks Menu cannot be removed
        walk(self.bookmarks)
        self.bookmarks_changed()

    def bookmarks_changed(self) -> None:
        """Write ``~/Library/Safari/Bookmarks.plist`` (binary plist, Safari's structure)."""
        counter = [0]

        def conv(n: Bookmark, title: str | None = None) -> dict[str, Any]:
            counter[0] += 1
            uuid = f"00000000-0000-4000-8000-{counter[0]:012d}"
            if n.is_folder:
                return {"WebBookmarkType": "WebBookmarkTypeList", "Title": title if title is not None else n.title,
                        "WebBookmarkUUID": uuid, "Children": [conv(c) for c in n.children]}
            return {"WebBookmarkType": "WebBookmarkTypeLeaf", "URLString": n.url, "URIDictionary": {"title": n.title},
                    "WebBookmarkUUID": uuid}

        root = self.bookmarks
        data = {"WebBookmarkType": "WebBookmarkTypeList", "Title": "", "WebBookmarkFileVersion": 1,
                "WebBookmarkUUID": "00000000-0000-4000-8000-000000000000",
                "Children": [conv(root.children[0], "BookmarksBar"), conv(root.children[1], "BookmarksMenu")] +
                [conv(c) for c in root.children[2:]]}
        path = self.desktop.home / "Library" / "Safari" / "Bookmarks.plist"
        try:
            save_bytes(self.desktop.home_files, path, plistlib.dumps(data, fmt=plistlib.FMT_BINARY))
        except OSError:
            pass  # a symlinked Bookmarks.plist or Safari folder: the bookmarks stay in the app, never written through it
        self.touch()

    def bookmark_tree(self) -> list[dict[str, Any]]:
        def conv(n: Bookmark) -> dict[str, Any]:
            if n.is_folder:
                return {"title": n.title, "children": [conv(c) for c in n.children]}
            return {"title": n.title, "url": n.url}

        return [conv(c) for c in self.bookmarks.children]

    def state(self) -> dict[str, Any]:
        return {"running": self.running,
                "windows": [{"url": w.state["url"], "title": w.state["title"]} for w in self.windows],
                "bookmarks": self.bookmark_tree(),
                "history": [{"url": h["url"], "title": h["title"], "visit_time": h["visit_time"].isoformat()} for h in self.history]}

    # ------------------------------------------------------------------ GUI
    def new_window(self) -> Window:
        win = self._open_window()
        self.navigate(win, START_PAGE, record=False)
        return win

    def _front_browser(self) -> Window | None:
        """The front browser window: not an Open panel or other window of Safari's own without a page."""
        fw = self._front()
        return fw if fw is not None and _is_browser(fw) else None

    def _open_window(self) -> Window:
        w, h = 980, 600
        x, y = self.desktop.cascade_origin(w, h)
        win = Window(self, "Start Page", (x, y, w, h), self._build, title_h=52)
        win.state.update({"url": "", "title": "", "back": [], "forward": [], "scroll": 0})
        win.doc = self.fetch(START_PAGE)
        win.focus_key = "safari:address"
        self.desktop.show_window(win)
        return win

    def focus_address(self, win: Window | None) -> None:
        if win is None:
            return
        win.focus_key = "safari:address"
        ed = win.editor("safari:address", initial=win.state["url"])
        ed.select_all()
        win.touch()

    def add_bookmark_sheet(self, win: Window) -> Window:
        w, h = 440, 170
        folders = [p for p, _ in self.folders()]
        form = {"folder": "Favorites"}

        def build(sheet: Window) -> list[Widget]:
            ed = sheet.editor("bm:title", initial=win.state["title"])
            return [
                Label((20, 18, 150, 24), "Add this page to:", 13),
                PopupButton("bm:folder", (170, 18, 250, 24), folders, form["folder"],
                            lambda v: (form.__setitem__("folder", v), sheet.touch()), name="Add this page to"),
                TextField("bm:title", (20, 60, w - 40, 24), ed, name="Title", on_commit=lambda t: ok()),
                Button("bm:cancel", (w - 200, h - 44, 84, 26), "Cancel", lambda: self.desktop.close_window(sheet), cancel=True),
                Button("bm:add", (w - 104, h - 44, 84, 26), "Add", lambda: ok(), default=True),
            ]

        def ok() -> None:
            title = sheet.editors["bm:title"].text.strip() or win.state["url"]
            self.desktop.close_window(sheet)
            self.add_bookmark(win.state["url"], title, form["folder"])

        sheet = Window(self, "Add Bookmark", (0, 0, w, h), build, parent=win, kind="sheet")
        sheet.focus_key = "bm:title"
        sheet.editor("bm:title", initial=win.state["title"]).select_all()
        self.desktop.show_window(sheet)
        return sheet

    def new_folder_prompt(self, win: Window | None) -> None:
        if win is None:
            win = self._open_window()
            self.navigate(win, START_PAGE, record=False)
        self.show_sidebar = True
        text_prompt(self, win, "New Bookmark Folder", "Name:", "untitled folder", lambda t: self.add_folder(t.strip() or "untitled folder"))

    def app_menus(self) -> list:
        fw = self._front_browser()
        return [("File", [
            MenuItem("New Window", self.new_window, "cmd+n"),
            # the sim shows one tab per window: a new tab opens as a new window, focused on its address bar
            MenuItem("New Tab", self._new_tab, "cmd+t"),
            MenuItem("Open Location…", lambda: self.focus_address(fw), "cmd+l", enabled=fw is not None),
            sep(),
            MenuItem("Close Window", self._close_front, "cmd+w", enabled=fw is not None),
        ])]

    def extra_menus(self) -> list:
        fw = self._front_browser()
        recent = list(reversed(self.history[-10:]))
        return [
            ("View", [MenuItem("Hide Sidebar" if self.show_sidebar else "Show Sidebar", self._toggle_sidebar, "cmd+shift+l"),
                      MenuItem("Reload Page", lambda: self.navigate(fw, fw.state["url"], record=False) if fw else None, "cmd+r")]),
            ("History", [MenuItem("Back", lambda: self.go_back(fw) if fw else None, "cmd+["),
                         MenuItem("Forward", lambda: self.go_forward(fw) if fw else None, "cmd+]"), sep()] +
             [MenuItem(h["title"][:40], (lambda u=h["url"]: self.open_url(u))) for h in recent] +
             [sep(), MenuItem("Clear History…", self._clear_history)]),
            ("Bookmarks", [MenuItem("Add Bookmark…", lambda: self.add_bookmark_sheet(fw) if fw else None, "cmd+d",
                                    enabled=fw is not None and fw.state["url"] not in ("", START_PAGE)),
                           MenuItem("Add Bookmark Folder", lambda: self.new_folder_prompt(fw), "cmd+shift+n"),
                           MenuItem("Show Bookmarks", self._show_bookmarks, "cmd+option+b")]),
        ]

    def _new_tab(self) -> None:
        win = self.new_window()
        self.focus_address(win)

    def _clear_history(self) -> None:
        self.history.clear()
        self.history_db.clear(self.desktop.now)

    def _toggle_sidebar(self) -> None:
        self.show_sidebar = not self.show_sidebar

    def _show_bookmarks(self) -> None:
        self.show_sidebar = True
        self.reopen()

    def _sidebar_rows(self) -> tuple[list[Row], dict[str, Bookmark]]:
        rows: list[Row] = []
        index: dict[str, Bookmark] = {}

        def walk(node: Bookmark, depth: int) -> None:
            for c in node.children:
                key = f"bm:{len(index)}"
                index[key] = c
                rows.append(Row(key, ["   " * depth + c.title], icon="folder" if c.is_folder else None))
                if c.is_folder:
                    walk(c, depth + 1)

        walk(self.bookmarks, 0)
        return rows, index

    def _build(self, win: Window) -> list[Widget]:
        W, H = win.w, win.h
        st = win.state
        out: list[Widget] = []
        left = 0
        if self.show_sidebar:
            left = 220
            rows, index = self._sidebar_rows()
            out.append(Box((0, 0, left, H), "sidebar_bg"))

            def activate(key: str) -> None:
                n = index.get(key)
                if n is not None and not n.is_folder:
                    self.navigate(win, n.url)

            def context(keys: list[str]) -> list[MenuItem]:
                n = index.get(keys[0])
                if n is None:
                    return []
                return [MenuItem("Open", lambda: activate(keys[0]), enabled=not n.is_folder),
                        MenuItem("Rename…", lambda: text_prompt(self, win, "Rename", "Name:", n.title,
                                                                 lambda t: (setattr(n, "title", t.strip() or n.title), self.bookmarks_changed()))),
                        MenuItem("Delete", lambda: self.remove_bookmark(n))]

            def drop(key: str, payload: Any) -> None:
                target = index.get(key)
                for k in payload[1]:
                    n = index.get(k)
                    if n is not None and target is not None and target.is_folder and n is not target:
                        self.remove_bookmark(n)
                        target.children.append(n)
                self.bookmarks_changed()

            out.append(ListView("safari:bookmarks", (0, 52, left, H - 52), rows, [], name="Bookmarks", sidebar=True,
                                on_activate=activate, on_select=lambda ks: activate(ks[0]) if ks else None,
                                on_context=context, on_delete=lambda ks: [self.remove_bookmark(index[k]) for k in ks if k in index],
                                drag_kind="bookmarks", drop_ok=lambda k, p: p[0] == "bookmarks" and index.get(k) is not None
                                and index[k].is_folder, on_drop=drop))
        out.append(Button("safari:back", (left + 80 if not left else left + 12, 14, 28, 24), "Back", lambda: self.go_back(win),
                          style="toolbar", symbol="‹", size=20, enabled=bool(st["back"])))
        bx = left + 80 if not left else left + 12
        out.append(Button("safari:forward", (bx + 30, 14, 28, 24), "Forward", lambda: self.go_forward(win), style="toolbar",
                          symbol="›", size=20, enabled=bool(st["forward"])))
        out.append(Button("safari:sidebar", (bx + 62, 14, 28, 24), "Sidebar", self._toggle_sidebar, style="toolbar", symbol="▥", size=15))
        addr_url = "" if st["url"] == START_PAGE else st["url"]
        ed = win.editor("safari:address", initial=addr_url)
        if win.focus_key != "safari:address":
            ed.sync(addr_url)
        ax = bx + 100
        out.append(TextField("safari:address", (ax, 14, W - ax - 60, 24), ed, placeholder="Search or enter website name",
                             name="Address and search", on_commit=lambda t: self.navigate(win, self.resolve(t)),
                             select_on_focus=True))
        out.append(Button("safari:addbookmark", (W - 50, 14, 36, 24), "Add Bookmark",
                          lambda: self.add_bookmark_sheet(win) if st["url"] not in ("", START_PAGE) else None,
                          style="toolbar", symbol="☆", size=16))
        page: Page = win.doc
        runs, height = _layout_page(page, W - left - 80)
        px, py = left + 40, 52
        ph = H - 52

        def paint(d: Any, theme: Theme, rect: tuple) -> None:
            x, y, w, h = rect
            d.rectangle((x, y, x + w, y + h), fill=theme.content_bg)
            sc = st["scroll"]
            for rx, ry, text, size, weight, href in runs:
                yy = y + 16 + ry - sc
                if yy < y - size or yy > y + h:
                    continue
                color = theme.link if href else theme.text
                d.text((x + 40 + rx, yy), text, font=font(size, weight), fill=color)
                if href:
                    tw = font(size, weight).getlength(text)
                    d.line((x + 40 + rx, yy + size + 2, x + 40 + rx + tw, yy + size + 2), fill=color)

        def click(w: Window, ev: MouseEvent) -> None:
            lx, ly = ev.x - (left + 40), ev.y - (52 + 16) + st["scroll"]
            for rx, ry, text, size, weight, href in runs:
                if href and rx <= lx <= rx + font(size, weight).getlength(text) and ry <= ly <= ry + size + 4:
                    target = href
                    if not re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target):
                        base = st["url"]
                        u = urlparse(base)
                        if target.startswith("/"):
                            target = f"{u.scheme}://{u.netloc}{target}"
                        else:
                            target = base.rsplit("/", 1)[0] + "/" + target
                    self.navigate(win, target)
                    return

        def on_scroll(dy: int) -> None:
            st["scroll"] = max(0, min(max(0, height - ph + 40), st["scroll"] - dy * 40))

        links: list[tuple[str, str, str | None, tuple[int, int, int, int], str]] = []
        prev: tuple | None = None  # words of one link on one line form one AXLink
        for rx, ry, text, size, weight, href in runs:
            if not href or not 0 <= 16 + ry - st["scroll"] < ph:
                prev = None
                continue
            x0, y0 = left + 40 + int(rx), 52 + 16 + int(ry) - st["scroll"]
            x1 = x0 + int(font(size, weight).getlength(text.rstrip()))
            if prev is not None and prev[2] == href and prev[3][1] == y0:
                _r, name, _h, (lx0, ly0, _lw, lh0), _f = links[-1]  # not px/py: those place the page widget below
                links[-1] = ("AXLink", name + text, href, (lx0, ly0, x1 - lx0, lh0), "")
            else:
                links.append(("AXLink", text, href, (x0 + (len(text) - len(text.lstrip())) * 4, y0, x1 - x0, size + 4), ""))
            prev = links[-1]
        links = [(r, n.strip(), h, rect, f) for r, n, h, rect, f in links]
        out.append(Custom("safari:page", (left, py, W - left, ph), paint, on_click=click, on_scroll=on_scroll, role="AXWebArea",
                          name=page.title, value=None, children=links))
        return out


def _layout_page(page: Page, width: int) -> tuple[list[tuple[float, float, str, int, str, str | None]], float]:
    """Word-wrap a page's blocks: runs of (x, y, text, size, weight, href) and the total height."""
    runs: list[tuple[float, float, str, int, str, str | None]] = []
    y = 0.0
    styles = {"h1": (26, "bold"), "h2": (20, "bold"), "h3": (16, "bold"), "p": (14, "regular"), "li": (14, "regular"),
              "pre": (13, "mono")}
    for b in page.blocks:
        if b.kind == "hr":
            y += 16
            continue
        size, weight = styles.get(b.kind, (14, "regular"))
        f = font(size, weight)
        lh = size * 1.5
        x = 20.0 if b.kind == "li" else 0.0
        if b.kind == "li":
            runs.append((4.0, y, "•", size, weight, None))
        for text, href in b.spans:
            parts = text.split("\n") if b.kind == "pre" else [text]
            for pi, part in enumerate(parts):
                if pi > 0:
                    y += lh
                    x = 0.0
                for word in re.findall(r"\s*\S+\s*", part) if b.kind != "pre" else [part]:
                    wl = f.getlength(word)
                    if x + wl > width and x > 0:
                        y += lh
                        x = 20.0 if b.kind == "li" else 0.0
                    runs.append((x, y, word, size, weight, href))
                    x += wl
        y += lh + (10 if b.kind.startswith("h") or b.kind == "p" else 4)
    return runs, y


class SafariScripting(WindowScripting):
    """Safari's dictionary: windows (current tab, document), documents and tabs (name, URL, text,
    source); ``open location``; ``do JavaScript`` answers as Safari does when Apple Events JavaScript
    is off. Windows' name, index, id, bounds and the lifecycle come from WindowScripting."""

    version = "26.0"
    window_classes = ("window", "document")  # each window shows one document (its tab)
    single_tab = True

    def __init__(self, app: SafariApp) -> None:
        self.app = app
        self.name = "Safari"
        cmds = dict(STANDARD_COMMANDS)
        cmds.update({"open location": (), "do JavaScript": ("in",), "search the web": ("for", "in")})
        self.terminology = Terminology(
            classes={"window": "windows", "document": "documents", "tab": "tabs"},
            properties=frozenset({"name", "URL", "text", "source", "current tab", "index", "id", "bounds", "document",
                                  "visible", "frontmost", "version"}),
            commands=cmds)

    def get_property(self, obj: ObjectRef | None, prop: str) -> Any:
        if obj is None or obj.cls == "window" and prop in WINDOW_PROPERTIES:
            return super().get_property(obj, prop)
        w = self.window(obj)  # a window, or the document / tab it shows
        page: Page = w.doc
        if obj.cls == "window":
            if prop == "current tab":
                return ObjectRef("tab", w.id)
            if prop == "document":
                return ObjectRef("document", w.id)
        if prop == "URL":
            return "" if w.state["url"] == START_PAGE else w.state["url"]
        if prop == "name":
            return page.title
        if prop == "text":
            return page.text
        if prop == "source":
            return page.source
        if prop == "index":
            return 1
        return super().get_property(obj, prop)

    def set_property(self, obj: ObjectRef | None, prop: str, value: Any) -> None:
        if obj is not None and prop == "URL":
            self.app.navigate(self.window(obj), str(value))
            return
        if obj is not None and obj.cls == "window" and prop == "current tab":
            return
        super().set_property(obj, prop, value)

    def make(self, cls: str, properties: dict[str, Any], at: ObjectRef | None) -> ObjectRef:
        if cls not in ("document", "tab", "window"):
            raise AppleScriptError(f"Can’t make class {cls}.", ERR_APP_GENERIC)
        # the sim shows one tab per window: a new tab opens in a new window
        win = self.app.open_url(str(properties.get("URL", START_PAGE)), new_window=True)
        return ObjectRef(cls if cls != "window" else "window", win.id)

    def delete(self, obj: ObjectRef) -> None:
        self.app.desktop.close_window(self.window(obj))

    def command(self, name: str, direct: Any, params: dict[str, Any]) -> Any:
        if name in ("open location", "search the web"):
            if name == "search the web":
                url = SEARCH_URL + quote_plus(str(params.get("for", direct or "")))
            else:
                url = self.app.resolve(str(direct))
            self.app.desktop.activate(self.app, reopen=False)
            self.app.open_url(url)
            return None
        if name == "do JavaScript":
            raise AppleScriptError("You must enable the 'Allow JavaScript from Apple Events' option in Safari's Develop "
                                   "menu to use 'do JavaScript'.", 8)
        if name == "close":
            items = direct if isinstance(direct, list) else [direct]
            for it in items:
                if isinstance(it, ObjectRef):
                    self.app.desktop.close_window(self.window(it))
            return None
        return super().command(name, direct, params)


# ------------------------------------------------------------------------------------ History.db

#: Safari's History.db tables (the columns Safari has; the sim fills the ones history readers use)
HISTORY_SCHEMA = """
CREATE TABLE IF NOT EXISTS history_items (id INTEGER PRIMARY KEY AUTOINCREMENT, url TEXT NOT NULL UNIQUE,
  domain_expansion TEXT NULL, visit_count INTEGER NOT NULL, daily_visit_counts BLOB NOT NULL,
  weekly_visit_counts BLOB NULL, autocomplete_triggers BLOB NULL,
  should_recompute_derived_visit_counts INTEGER NOT NULL, visit_count_score INTEGER NOT NULL,
  status_code INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS history_visits (id INTEGER PRIMARY KEY AUTOINCREMENT,
  history_item INTEGER NOT NULL REFERENCES history_items(id) ON DELETE CASCADE, visit_time REAL NOT NULL,
  title TEXT NULL, load_successful BOOLEAN NOT NULL DEFAULT 1, http_non_get BOOLEAN NOT NULL DEFAULT 0,
  synthesized BOOLEAN NOT NULL DEFAULT 0,
  redirect_source INTEGER NULL UNIQUE REFERENCES history_visits(id) ON DELETE CASCADE,
  redirect_destination INTEGER NULL UNIQUE REFERENCES history_visits(id) ON DELETE CASCADE,
  origin INTEGER NOT NULL DEFAULT 0, generation INTEGER NOT NULL DEFAULT 0, attributes INTEGER NOT NULL DEFAULT 0,
  score INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS history_tombstones (id INTEGER PRIMARY KEY AUTOINCREMENT, start_time REAL NOT NULL,
  end_time REAL NOT NULL, url TEXT, generation INTEGER NOT NULL DEFAULT 0);
CREATE TABLE IF NOT EXISTS metadata (key TEXT NOT NULL UNIQUE, value);
CREATE INDEX IF NOT EXISTS history_visits__last_visit ON history_visits (history_item, visit_time DESC, synthesized ASC);
CREATE INDEX IF NOT EXISTS history_items__domain_expansion ON history_items (domain_expansion);
"""
#: History.db's times are Core Data timestamps: seconds since 2001-01-01 00:00 UTC (the sim's clock reads as UTC)
CORE_DATA_EPOCH = datetime(2001, 1, 1)
_TWO_LEVEL_SUFFIXES = ("co.uk", "org.uk", "ac.uk", "gov.uk", "com.au", "net.au", "org.au", "co.jp", "co.nz", "com.br")


def domain_expansion(url: str) -> str | None:
    """The ``domain_expansion`` Safari stores: the host without ``www.`` and its public suffix
    (``https://www.apple.com/macos`` → ``apple``, ``en.wikipedia.org`` → ``en.wikipedia``); ``None``
    for hosts without a suffix (file URLs, localhost, IP addresses)."""
    try:
        host = (urlparse(url).hostname or "").lower()
    except ValueError:  # an address Python cannot split has no domain to expand
        return None
    if host.startswith("www."):
        host = host[4:]
    if "." not in host or host.replace(".", "").isdigit():
        return None
    for suffix in _TWO_LEVEL_SUFFIXES:
        if host.endswith("." + suffix):
            return host[: -len(suffix) - 1] or None
    return host.rsplit(".", 1)[0]


#: Largest History.db Safari reads (bytes): far above any episode's visits.
MAX_HISTORY_BYTES = 16 * 2**20


def _database_from(data: bytes) -> sqlite3.Connection:
    """An in-memory SQLite database holding the file image ``data`` (empty: a new database)."""
    con = sqlite3.connect(":memory:")
    if data:
        if hasattr(con, "deserialize"):
            con.deserialize(data)
        else:  # Python 3.10: through a private file outside the home
            with tempfile.TemporaryDirectory() as tmp:
                with open(os.path.join(tmp, "h.db"), "wb") as f:
                    f.write(data)
                disk = sqlite3.connect(os.path.join(tmp, "h.db"))
                disk.backup(con)
                disk.close()
    return con


def _database_image(con: sqlite3.Connection) -> bytes:
    """The file image of the in-memory database ``con``."""
    if hasattr(con, "serialize"):
        return con.serialize()
    with tempfile.TemporaryDirectory() as tmp:
        disk = sqlite3.connect(os.path.join(tmp, "h.db"))
        con.backup(disk)
        disk.close()
        with open(os.path.join(tmp, "h.db"), "rb") as f:
            return f.read()


class HistoryDB:
    """``~/Library/Safari/History.db`` kept in step with Safari's visits: one ``history_items`` row
    per URL (``visit_count``), one ``history_visits`` row per visit (``visit_time``, ``title``).

    SQLite never opens the file in the home (it would follow a symlinked History.db, or its -journal
    file, out of it): the file is read through the home's layer ``files`` (capped), changed in memory
    and written back whole through the layer, so the file alone holds every visit. A History.db that
    is a symlink or special file is left alone; the visits stay in Safari's memory."""

    def __init__(self, files: ConfinedDir, path: Path) -> None:
        self.files, self.path = files, path

    def _load(self) -> sqlite3.Connection:
        """The file's database in memory with Safari's tables (a missing file: an empty one); raises
        ``sqlite3.DatabaseError`` for a file that is no database, ``OSError`` for one the layer refuses."""
        try:
            data = self.files.read_bytes(self.path, limit=MAX_HISTORY_BYTES)
        except ConfinementError as e:
            if e.errno not in (errno.ENOENT, errno.ENOTDIR):
                raise
            data = b""
        con = _database_from(data)
        try:
            con.executescript(HISTORY_SCHEMA)
        except sqlite3.DatabaseError:
            con.close()
            raise
        return con

    def _write(self, fn: Any, history: list[dict[str, Any]] | None = None) -> None:
        """Run ``fn(connection)`` in one transaction and write the file. A file that is not a database
        any more (the agent overwrote it) is replaced by a fresh one holding ``history``, as Safari
        rebuilds it."""
        try:
            try:
                con = self._load()
            except sqlite3.DatabaseError:
                con = _database_from(b"")
                con.executescript(HISTORY_SCHEMA)
                with con:
                    for h in (history or [])[:-1]:
                        self._insert(con, h["url"], h["title"], h["visit_time"], True)
        except OSError:
            return  # refused by the layer (a symlink, a FIFO, a huge file): not recorded on disk
        try:
            with con:
                fn(con)
            save_bytes(self.files, self.path, _database_image(con))
        except OSError:
            pass
        finally:
            con.close()

    @staticmethod
    def _insert(con: sqlite3.Connection, url: str, title: str, when: datetime, ok: bool) -> None:
        t = (when - CORE_DATA_EPOCH).total_seconds()
        con.execute("INSERT INTO history_items (url, domain_expansion, visit_count, daily_visit_counts, "
                    "should_recompute_derived_visit_counts, visit_count_score) VALUES (?, ?, 0, x'', 0, 0) "
                    "ON CONFLICT(url) DO NOTHING", (url, domain_expansion(url)))
        item = con.execute("SELECT id FROM history_items WHERE url = ?", (url,)).fetchone()[0]
        con.execute("UPDATE history_items SET visit_count = visit_count + 1, visit_count_score = visit_count_score + 100 "
                    "WHERE id = ?", (item,))
        con.execute("INSERT INTO history_visits (history_item, visit_time, title, load_successful) VALUES (?, ?, ?, ?)",
                    (item, t, title, 1 if ok else 0))

    def ensure(self) -> None:
        """Create the file with Safari's tables if it is not there."""
        self._write(lambda con: None)

    def record(self, url: str, title: str, when: datetime, ok: bool, history: list[dict[str, Any]]) -> None:
        """Add one visit (``history`` is Safari's in-memory list, used if the file must be rebuilt)."""
        self._write(lambda con: self._insert(con, url, title, when, ok), history)

    def clear(self, when: datetime) -> None:
        """History ▸ Clear History: every visit and item goes; a tombstone records the clearing."""
        def wipe(con: sqlite3.Connection) -> None:
            con.execute("DELETE FROM history_visits")
            con.execute("DELETE FROM history_items")
            con.execute("INSERT INTO history_tombstones (start_time, end_time) VALUES (?, ?)",
                        (0.0, (when - CORE_DATA_EPOCH).total_seconds()))
        self._write(wipe)

    def visits(self) -> list[dict[str, Any]]:
        """The visits in the file, oldest first (``[]`` when there is no readable file)."""
        try:
            con = self._load()
        except (OSError, sqlite3.DatabaseError):
            return []
        try:
            try:
                rows = con.execute("SELECT i.url, v.title, v.visit_time FROM history_visits v JOIN history_items i "
                                   "ON i.id = v.history_item ORDER BY v.visit_time, v.id").fetchall()
            finally:
                con.close()
        except sqlite3.DatabaseError:
            return []
        return [{"url": u, "title": t or "", "visit_time": CORE_DATA_EPOCH + timedelta(seconds=s)} for u, t, s in rows]


def _is_browser(win: Window) -> bool:
    """Whether ``win`` shows a page (has a URL), unlike a file panel Safari opened."""
    return "url" in win.state
