"""``gifgrep`` in the simulated Mac: steipete's GIF search CLI (``search``, the default command, plus
``still`` and ``sheet``) over an offline GIF index the task declares in its ``web_pages``.

The search API's responses are the task's pages: a page at a provider's search endpoint —
``https://tenor.googleapis.com/v2/search`` (Tenor v2), ``https://api.klipy.com/v2/search`` (Klipy,
the same format) or ``https://api.giphy.com/v1/gifs/search`` (Giphy v1) — holds that provider's JSON
response. A page whose URL has ``?q=<query>`` answers that query as it is (the first ``--max``
results); a page without ``q`` is the provider's whole index, searched here: every word of the query
must occur in a result's title, description, tags or id, and results with more hits in the title and
tags come first. No page for the provider is what a Mac without network sees (``no such host``).

``--download`` saves each result into ``~/Downloads`` as a real GIF (named after its title, ``-1``,
``-2``… on collisions): the bytes of a page at the GIF's URL when the task declares one as a
``data:image/gif;base64,…`` URL, else an animated GIF made with Pillow at the result's size (a
deterministic picture of its title). ``still`` and ``sheet`` decode a GIF in the home (or a result's
URL) with Pillow and write a PNG. Output formats as the real tool's: ``--json`` (an array of ``id``,
``title``, ``url``, ``preview_url``, ``tags``, ``width``, ``height``), ``--format url`` (the default
when stdout is not a terminal, as in the sim's shell), ``tsv``, ``md``, ``comment``, ``plain``.
Parse errors exit 2 with the usage, run-time errors 1.

Bounds: a response of at most 8 MB and 100,000 results, a GIF file of at most 32 MB whose frames fit
the episode's ``image_pixels``, at most 2,000 frames; the work runs in a short-lived child process
under the action deadline. Left out: the interactive ``tui`` (it needs a terminal; it fails as on a
pipe), Kitty/iTerm thumbnails, the API keys' environment variables (the offline index needs none)."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import math
import re
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlencode, urlparse

from mmenvs.core.budget import BudgetExceeded, check_limit

from .base import App, CommandContext
from .cli_support import CliExit, check_deadline, fetch_url, int_value, layer, read_file, resolve, run_guarded, write_file

VERSION = "gifgrep 0.2.0 (sim)"
MAX_RESPONSE_CHARS = 8 * 2**20
MAX_RESULTS = 100_000
MAX_GIF_BYTES = 32 * 2**20
MAX_FRAMES = 2000
MAX_SIDE = 1024  # a synthesized GIF's longest side (larger declared sizes are scaled down)

ENDPOINTS = {
    "tenor": "https://tenor.googleapis.com/v2/search",
    "klipy": "https://api.klipy.com/v2/search",
    "giphy": "https://api.giphy.com/v1/gifs/search",
}

_USAGE = "Usage: gifgrep <command> [flags]\n"
_HELP = """Usage: gifgrep <command> [flags]

Grep the GIF. Stick the landing.

Flags:
  -h, --help             Show context-sensitive help.
      --color="auto"     Color output (auto, always, never).
      --no-color         Disable color output.
      --reveal           Reveal output file in file manager.
  -v, --verbose          Verbose stderr logs (-vv for more).
  -q, --quiet            Suppress non-essential stderr output.
      --version          Show version.

Commands:
  search <query> ... [flags]     Search and print GIF URLs (default command).
    --source="auto"              Source to search (auto, klipy, tenor, giphy).
    -m, --max=20                 Max results to fetch.
    --json                       Emit JSON array of results.
    -n, --number                 Prefix lines with 1-based index.
    --download                   Download results to ~/Downloads.
    --format="auto"              Output format (auto, plain, tsv, md, url, comment, json).
    --thumbs="auto"              Inline thumbnails (TTY only).
  tui [<query> ...] [flags]      Interactive browser with inline preview (needs a terminal).
  still <gif> --at=DURATION      Extract a single frame as PNG (-o, --output="still.png").
  sheet <gif> [flags]            Generate a sheet PNG of sampled frames
                                 (--frames=12, --cols=0, --padding=2, -o, --output="sheet.png").

Run "gifgrep <command> --help" for more information on a command.
"""

_COMMANDS = ("search", "tui", "still", "sheet")
_ENUMS = {"--source": ("auto", "klipy", "tenor", "giphy"), "--format": ("auto", "plain", "tsv", "md", "url", "comment", "json"),
          "--thumbs": ("auto", "always", "never"), "--color": ("auto", "always", "never")}
_VALUE_FLAGS = {"search": {"--source", "--max", "--format", "--thumbs", "--color", "--cache-dir", "--cache-ttl"},
                "tui": {"--source", "--max", "--color"},
                "still": {"--at", "--output", "--color"},
                "sheet": {"--frames", "--cols", "--padding", "--output", "--color"}}
_BOOL_FLAGS = {"search": {"--json", "--number", "--download", "--no-cache"}, "tui": {"--no-cache"}, "still": set(), "sheet": set()}
_GLOBAL_BOOL = {"--no-color", "--reveal", "--verbose", "--quiet"}
_SHORT = {"-m": "--max", "-n": "--number", "-o": "--output", "-v": "--verbose", "-q": "--quiet"}


def _usage_error(message: str) -> CliExit:
    return CliExit(_USAGE + "gifgrep: error: " + message + "\n", 2)


def _parse(args: list[str]) -> tuple[str, list[str], dict[str, Any]]:
    """(command, positional arguments, flags) of a gifgrep command line (kong's rules, ``search`` the default)."""
    cmd = "search"
    pos: list[str] = []
    opts: dict[str, Any] = {"--verbose": 0}
    seen_cmd = False
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            pos += args[i + 1:]
            break
        if a.startswith("-") and a != "-" and not re.fullmatch(r"-\d+(\.\d+)?s?", a):
            name, eq, inline = a.partition("=")
            if name.startswith("-") and not name.startswith("--") and len(name) > 2 and set(name[1:]) == {"v"}:
                opts["--verbose"] += len(name) - 1  # -vv
                i += 1
                continue
            name = _SHORT.get(name, name)
            if name in _GLOBAL_BOOL:
                opts[name] = opts[name] + 1 if name == "--verbose" else True
                i += 1
                continue
            if name in _BOOL_FLAGS[cmd]:
                opts[name] = True
                i += 1
                continue
            if name in _VALUE_FLAGS[cmd]:
                if eq:
                    value = inline
                elif i + 1 < len(args):
                    i += 1
                    value = args[i]
                else:
                    raise _usage_error(f"{name}: expected value")
                if name in _ENUMS and value not in _ENUMS[name]:
                    raise _usage_error(f'{name}: must be one of "' + '","'.join(_ENUMS[name]) + f'" but got "{value}"')
                opts[name] = value
                i += 1
                continue
            raise _usage_error(f"unknown flag {name}")
        if not seen_cmd and not pos and a in _COMMANDS:
            cmd, seen_cmd = a, True
        elif not seen_cmd and not pos and a.lower() in ("contact-sheet", "contactsheet", "stills"):
            cmd, seen_cmd = "sheet", True
        else:
            pos.append(a)
        i += 1
    return cmd, pos, opts


# ---------------------------------------------------------------------------------------------- index
def _same_endpoint(url: str, endpoint: str) -> bool:
    a, b = urlparse(url), urlparse(endpoint)
    host = (a.hostname or "").lower().removeprefix("www.")
    return host == (b.hostname or "").lower() and a.path.rstrip("/") == b.path.rstrip("/")


def _norm(q: str) -> str:
    return " ".join(q.lower().split())


def _provider_pages(ctx: CommandContext, source: str) -> list[tuple[str, str]]:
    safari = ctx.backend.current_desktop().apps.get("Safari")
    pages = getattr(safari, "pages", {}) or {}
    return [(u, body) for u, body in pages.items() if _same_endpoint(u, ENDPOINTS[source])]


def _resolve_source(ctx: CommandContext, source: str) -> str:
    if source != "auto":
        return source
    for s in ("giphy", "klipy", "tenor"):  # auto prefers Giphy (keyed), then Klipy, else Tenor
        if _provider_pages(ctx, s):
            return s
    return "tenor"


def _results_of(source: str, body: str) -> list[dict[str, Any]]:
    """A provider response's results in gifgrep's model (id, title, url, preview_url, tags, width, height)."""
    if len(body) > MAX_RESPONSE_CHARS:
        raise CliExit(f"gifgrep: the {source} response has {len(body):,} characters, more than the "
                      f"{MAX_RESPONSE_CHARS:,} the simulated gifgrep reads\n")
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, RecursionError) as e:
        raise CliExit(f"{'invalid character' if 'Expecting' in str(e) else 'json'}: {e}\n") from None
    items = data.get("data" if source == "giphy" else "results") if isinstance(data, dict) else None
    if not isinstance(items, list):
        raise CliExit(f"gifgrep: the {source} response has no '{'data' if source == 'giphy' else 'results'}' list\n")
    if len(items) > MAX_RESULTS:
        raise CliExit(f"gifgrep: the {source} index has {len(items):,} results, more than the {MAX_RESULTS:,} "
                      "the simulated gifgrep searches\n")
    out = []
    for n, r in enumerate(items):
        if n % 1000 == 0:
            check_deadline()
        if not isinstance(r, dict):
            continue
        rid = str(r.get("id", ""))
        if source == "giphy":
            images = r.get("images") if isinstance(r.get("images"), dict) else {}
            main = next((images[k] for k in ("original", "downsized", "fixed_height") if isinstance(images.get(k), dict)
                         and images[k].get("url")), None)
            if main is None:
                continue
            prev = next((images[k] for k in ("fixed_height_small", "preview_gif", "fixed_width_small")
                         if isinstance(images.get(k), dict) and images[k].get("url")), main)
            title = str(r.get("title") or r.get("alt_text") or rid)
            tags = [str(t) for t in r.get("tags", []) if isinstance(t, (str, int))] if isinstance(r.get("tags"), list) else []
            w, h = _dim(main.get("width")), _dim(main.get("height"))
            desc = str(r.get("alt_text", ""))
        else:
            formats = r.get("media_formats") if isinstance(r.get("media_formats"), dict) else {}
            main = next((formats[k] for k in ("gif", "mediumgif", "tinygif", "nanogif", "preview")
                         if isinstance(formats.get(k), dict) and formats[k].get("url")), None)
            if main is None:
                continue
            prev = next((formats[k] for k in ("tinygif", "nanogif", "preview", "mediumgif", "gif")
                         if isinstance(formats.get(k), dict) and formats[k].get("url")), main)
            title = str(r.get("title") or r.get("content_description") or rid)
            tags = [str(t) for t in r.get("tags", []) if isinstance(t, (str, int))] if isinstance(r.get("tags"), list) else []
            dims = main.get("dims") if isinstance(main.get("dims"), list) and len(main.get("dims")) == 2 else [0, 0]
            w, h = _dim(dims[0]), _dim(dims[1])
            desc = str(r.get("content_description", ""))
        out.append({"id": rid, "title": title, "url": str(main["url"]), "preview_url": str(prev["url"]), "tags": tags,
                    "width": w, "height": h, "_desc": desc})
    return out


def _dim(v: Any) -> int:
    try:
        n = int(float(v))
    except (TypeError, ValueError):
        return 0
    return max(0, min(n, 100_000))


def _hit(word: str, text: str) -> bool:
    """``word`` occurs in ``text``, or its singular does ("cats" finds "cat")."""
    return word in text or (len(word) > 3 and word.endswith("s") and word[:-1] in text)


def _rank(results: list[dict[str, Any]], query: str) -> list[dict[str, Any]]:
    words = _norm(query).split()
    scored = []
    for n, r in enumerate(results):
        title, tags = r["title"].lower(), " ".join(r["tags"]).lower()
        hay = " ".join((title, tags, r["_desc"].lower(), r["id"].lower()))
        if all(_hit(w, hay) for w in words):
            scored.append((-(2 * sum(_hit(w, title) for w in words) + sum(_hit(w, tags) for w in words)), n, r))
    return [r for _s, _n, r in sorted(scored, key=lambda t: (t[0], t[1]))]


def search(ctx: CommandContext, source: str, query: str, limit: int) -> list[dict[str, Any]]:
    pages = _provider_pages(ctx, source)
    endpoint = ENDPOINTS[source]
    if not pages:
        host = urlparse(endpoint).hostname
        params = {"q": query, "limit": limit} if source != "giphy" else {"q": query, "limit": limit}
        raise CliExit(f'Get "{endpoint}?{urlencode(params)}": dial tcp: lookup {host}: no such host\n')
    want = _norm(query)
    exact = [body for u, body in pages if _norm(parse_qs(urlparse(u).query).get("q", [""])[0]) == want]
    if exact:
        return _results_of(source, exact[0])[:limit]
    index = [body for u, body in pages if not parse_qs(urlparse(u).query).get("q")]
    if not index:
        return []  # the provider answers, with no results for this query
    return _rank(_results_of(source, index[0]), query)[:limit]


def _known_media(ctx: CommandContext) -> dict[str, dict[str, Any]]:
    """Every GIF URL the declared indexes name → its result (for downloading or decoding a result's URL)."""
    out: dict[str, dict[str, Any]] = {}
    for source in ENDPOINTS:
        for _u, body in _provider_pages(ctx, source):
            try:
                for r in _results_of(source, body):
                    out.setdefault(r["url"], r)
                    out.setdefault(r["preview_url"], r)
            except CliExit:
                continue
    return out


# ---------------------------------------------------------------------------------------------- GIF bytes
def synth_gif(result: dict[str, Any], max_pixels: int) -> bytes:
    """A small animated GIF for ``result``: its declared size (scaled to fit), colours from its id, its
    title written on it, a dot that moves across; deterministic."""
    from PIL import Image, ImageDraw

    w, h = result.get("width") or 320, result.get("height") or 240
    scale = min(1.0, MAX_SIDE / max(w, h), math.sqrt(max_pixels / (w * h)))
    w, h = max(16, int(w * scale)), max(16, int(h * scale))
    digest = hashlib.sha256((result.get("id") or result.get("url") or "").encode()).digest()
    base = tuple(digest[:3])
    accent = tuple(255 - c for c in base)
    frames = []
    for k in range(8):
        img = Image.new("RGB", (w, h), base)
        d = ImageDraw.Draw(img)
        for y in range(0, h, max(1, h // 16)):
            shade = tuple(min(255, c + (y * 60) // h) for c in base)
            d.rectangle((0, y, w, y + max(1, h // 16)), fill=shade)
        r = max(3, min(w, h) // 10)
        cx = int(r + (w - 2 * r) * k / 7)
        d.ellipse((cx - r, h // 2 - r, cx + r, h // 2 + r), fill=accent)
        d.text((6, 6), str(result.get("title", ""))[:60], fill=(255, 255, 255))
        frames.append(img.convert("P", palette=Image.ADAPTIVE, colors=64))
    buf = io.BytesIO()
    frames[0].save(buf, format="GIF", save_all=True, append_images=frames[1:], duration=100, loop=0)
    return buf.getvalue()


def _gif_from_data_url(text: str) -> bytes | None:
    m = re.match(r"\s*data:image/gif;base64,([A-Za-z0-9+/=\s]+)\s*$", text[: MAX_GIF_BYTES * 2])
    if m is None:
        return None
    try:
        data = base64.b64decode(m.group(1), validate=False)
    except ValueError:
        return None
    return data if data[:6] in (b"GIF87a", b"GIF89a") else None


def media_bytes(ctx: CommandContext, url: str, result: dict[str, Any] | None) -> bytes:
    """The GIF at ``url``: a declared ``data:`` page, else synthesized for a known result; else ``http 404``."""
    got = fetch_url(ctx, url)
    if got is not None and got[0] == 200:
        data = _gif_from_data_url(got[1])
        if data is not None:
            return data
    if result is None:
        result = _known_media(ctx).get(url)
    if result is None:
        if got is None:
            host = urlparse(url).hostname or url
            raise CliExit(f'Get "{url}": dial tcp: lookup {host}: no such host\n')
        raise CliExit(f"http {got[0] if got[0] != 200 else 415}\n")
    return synth_gif(result, ctx.backend.budget.image_pixels)


def _filename(result: dict[str, Any]) -> str:
    name = " ".join((result.get("title") or result.get("id") or "").split())
    if not name:
        name = Path(urlparse(result.get("url", "")).path).name
    name = re.sub(r"[^A-Za-z0-9._-]", "_", "".join(c if ord(c) < 128 else "_" for c in name or "gif")).strip("._-") or "gif"
    if not name.lower().endswith(".gif"):
        name += ".gif"
    if len(name) > 80:
        stem, ext = name[:-4], ".gif"
        name = stem[:76] + ext
    return name


# ---------------------------------------------------------------------------------------------- output
def _format_results(results: list[dict[str, Any]], fmt: str, number: bool) -> str:
    public = [{k: r[k] for k in ("id", "title", "url", "preview_url", "tags", "width", "height")} for r in results]
    if fmt == "json":
        return json.dumps(public, indent=2, ensure_ascii=False) + "\n"
    lines = []
    for i, r in enumerate(public, 1):
        title = " ".join(r["title"].split()) or " ".join(r["id"].split()) or "untitled"
        pre = f"{i}\t" if number else ""
        if fmt == "url":
            lines.append(pre + r["url"])
        elif fmt == "md":
            lines.append((f"{i}. " if number else "- ") + f"[{title}]({r['url']})")
        elif fmt == "comment":
            lines.append(f"{pre}{r['url']}  # {title}")
        elif fmt == "plain":
            size = f" ({r['width']}x{r['height']})" if r["width"] and r["height"] else ""
            lines.append(f"{i}. {title}{size}" if number else f"{title}{size}")
            lines.append(f"   {r['url']}")
        else:  # tsv
            lines.append(f"{pre}{title}\t{r['url']}")
    return "".join(line + "\n" for line in lines)


def _duration(text: str) -> float:
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*(ms|s|m)?\s*", text)
    if m is None:
        raise _usage_error(f'--at: invalid duration "{text}" (e.g. 1.5s, 1.5 or 500ms)')
    v = float(m.group(1))
    return v / 1000 if m.group(2) == "ms" else (v * 60 if m.group(2) == "m" else v)


def _load_frames(ctx: CommandContext, src: str) -> list[tuple[Any, float]]:
    """The frames of a GIF (a file in the home or a result's URL) as (RGB image, start time in s)."""
    from PIL import Image, ImageSequence, UnidentifiedImageError

    if src.startswith(("http://", "https://")):
        data = media_bytes(ctx, src, None)
    else:
        p = resolve(ctx, src, "gifgrep")
        data = read_file(ctx, p, MAX_GIF_BYTES, "gifgrep", src)
    budget = ctx.backend.budget
    if data[:6] in (b"GIF87a", b"GIF89a") and len(data) >= 10:  # the logical screen size, before Pillow reads on
        w, h = int.from_bytes(data[6:8], "little"), int.from_bytes(data[8:10], "little")
        check_limit("image_pixels", budget.image_pixels, w * h, f"gifgrep: a {w}x{h} GIF")
    try:
        im = Image.open(io.BytesIO(data))
        check_limit("image_pixels", budget.image_pixels, im.size[0] * im.size[1], f"gifgrep: a {im.size[0]}x{im.size[1]} image")
        if im.format != "GIF":
            raise CliExit(f"gif: can't recognize format (got {im.format})\n")
        frames = []
        t = 0.0
        for n, fr in enumerate(ImageSequence.Iterator(im)):
            if n >= MAX_FRAMES:
                break
            check_deadline()
            frames.append((fr.convert("RGB"), t))
            t += max(0.02, (fr.info.get("duration") or 100) / 1000)
        return frames
    except BudgetExceeded:
        raise
    except Image.DecompressionBombError as e:
        raise CliExit(f"gifgrep: {e} (the episode budget image_pixels={budget.image_pixels:,})\n") from None
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError, EOFError) as e:
        raise CliExit(f"gif: {e}\n") from None


def _png(img: Any) -> bytes:
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _main(args: list[str], stdin: str, ctx: CommandContext) -> tuple:
    if not args:
        return _HELP, "", 2  # as the real tool: the help, and status 2
    if args[0] in ("-h", "--help") or args == ["help"]:
        return _HELP, "", 0
    if "--version" in args:
        return VERSION + "\n", "", 0
    cmd, pos, opts = _parse(args)
    if "-h" in args or "--help" in args:
        return _HELP, "", 0
    if cmd == "tui":
        raise CliExit("tui requires an interactive terminal (stdin and stdout must be a TTY)\n")
    if cmd in ("still", "sheet"):
        return _extract(cmd, pos, opts, ctx)
    query = " ".join(pos).strip()
    if not query:
        raise CliExit("missing query\n")
    limit = int_value(str(opts.get("--max", "20")), "--max", "gifgrep")
    if limit <= 0:
        limit = 20
    limit = min(limit, 1000)
    source = _resolve_source(ctx, opts.get("--source", "auto"))
    results = search(ctx, source, query, limit)
    err = f"source={source} max={limit}\n" if opts["--verbose"] and not opts.get("--quiet") else ""
    reveal = None
    if opts.get("--download"):
        files = layer(ctx)
        folder = Path(ctx.backend.home) / "Downloads"
        for r in results:
            check_deadline()
            name = _filename(r)
            stem, ext = name[:-4], name[-4:]
            dest = folder / name
            for k in range(1, 1000):
                if files.kind(dest) is None:
                    break
                dest = folder / f"{stem}-{k}{ext}"
            else:
                raise CliExit("could not pick filename\n")
            write_file(ctx, dest, media_bytes(ctx, r["url"], r), parents=True)
            reveal = dest
            if opts["--verbose"] and not opts.get("--quiet"):
                err += f"saved {ctx.posix(dest)}\n"
    fmt = "json" if opts.get("--json") else opts.get("--format", "auto")
    fmt = "url" if fmt == "auto" else fmt  # the sim's shell output is a pipe, never a terminal
    out = _format_results(results, fmt, bool(opts.get("--number")))
    if opts.get("--reveal") and reveal is not None:
        return out, err, 0, str(reveal)
    return out, err, 0


def _extract(cmd: str, pos: list[str], opts: dict[str, Any], ctx: CommandContext) -> tuple:
    from PIL import Image

    if len(pos) != 1:
        raise _usage_error('expected "<gif>"' if not pos else f'unexpected argument {pos[1]}')
    output = opts.get("--output", "still.png" if cmd == "still" else "sheet.png")
    if output == "-":
        raise CliExit("gifgrep: writing the PNG to stdout is not supported in the simulator's shell (its output is "
                      "text); give -o <file>\n")
    if cmd == "still" and "--at" not in opts:
        raise _usage_error("missing flags: --at=DURATION")
    frames = _load_frames(ctx, pos[0])
    if not frames:
        raise CliExit("gif: no frames\n")
    if cmd == "still":
        at = _duration(opts["--at"])
        chosen = frames[0][0]
        for img, start in frames:
            if start <= at + 1e-9:
                chosen = img
        img = chosen
    else:
        count = int_value(str(opts.get("--frames", "12")), "--frames", "gifgrep")
        cols = int_value(str(opts.get("--cols", "0")), "--cols", "gifgrep")
        pad = int_value(str(opts.get("--padding", "2")), "--padding", "gifgrep")
        if count <= 0:
            raise CliExit("frames must be > 0\n")
        if cols < 0 or pad < 0:
            raise CliExit("cols and padding must be >= 0\n")
        count = min(count, len(frames))
        picks = [frames[round(k * (len(frames) - 1) / max(1, count - 1))][0] for k in range(count)] if count > 1 else [frames[0][0]]
        cols = cols or math.ceil(math.sqrt(count))
        cols = min(cols, count)
        rows = math.ceil(count / cols)
        fw, fh = picks[0].size
        sw, sh = cols * fw + (cols - 1) * pad, rows * fh + (rows - 1) * pad
        check_limit("image_pixels", ctx.backend.budget.image_pixels, sw * sh, f"gifgrep: a {sw}x{sh} sheet")
        img = Image.new("RGB", (sw, sh), (0, 0, 0))
        for k, fr in enumerate(picks):
            img.paste(fr, ((k % cols) * (fw + pad), (k // cols) * (fh + pad)))
    dest = resolve(ctx, output, "gifgrep")
    write_file(ctx, dest, _png(img))
    if opts.get("--reveal"):
        return "", "", 0, str(dest)
    return "", "", 0


class GifgrepTool(App):
    """``gifgrep`` (see the module docstring). No state: results come from the task's pages."""

    name = "gifgrep"
    bundle_id = "com.steipete.gifgrep"
    in_dock = False
    text_editing = False
    shell_commands = {"gifgrep": False}

    def state(self) -> dict[str, Any]:
        return {"running": False}

    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        res = run_guarded("gifgrep", _main, argv[1:], stdin, ctx, child=True)
        if len(res) == 4:  # --reveal: show the last file in Finder (the desktop lives in this process)
            out, err, code, shown = res
            desk = ctx.backend.current_desktop()
            p = Path(shown)
            w = desk.apps["Finder"].open_folder(p.parent)
            w.state["selection"] = [p.name]
            desk.activate(desk.apps["Finder"], reopen=False)
            return out, err, code
        return res
