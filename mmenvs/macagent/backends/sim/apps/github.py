"""GitHub, offline: repositories with issues, pull requests, labels and a README, shown three ways
from one state — pages at ``https://github.com/<owner>/<repo>[/issues|/pulls|/issues/<n>|/labels]``
in Safari, the REST API at ``https://api.github.com/…`` for ``curl``, and the ``gh`` command.
Creating, closing, reopening, commenting on and editing issues (``gh issue …`` or ``gh api``)
changes what all three show.

The data ships as JSON snapshots under ``data/github/`` (one file per repository). Their times are
moved so the snapshot moment falls a whole number of days before the desktop clock: "opened 2 days
ago" reads the same for any task date. The signed-in account (:data:`.github_model.LOGIN`) may write to every
repository. ``GitHub`` has no window: activating it opens github.com in Safari, like a web app.

The repositories and their writes live in :mod:`.github_model`, the search syntax in
:mod:`.github_query`, the REST API in :mod:`.github_rest`, the website in :mod:`.github_html` and
the ``gh`` command in :mod:`.github_cli`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlparse

from .base import App, CommandContext
from .github_cli import run_gh
from .github_html import web_page
from .github_model import GitHubStore
from .github_rest import WEB, rest_response

if TYPE_CHECKING:  # pragma: no cover
    from PIL import Image

    from ..desktop import Desktop


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
            return rest_response(self.hub, method, u.path, q, data, authed=False)
        return web_page(self.hub, u.path, q)

    # ------------------------------------------------------------------ gh
    def run_command(self, argv: list[str], stdin: str, ctx: CommandContext) -> tuple[str, str, int]:
        return run_gh(self.hub, argv[1:], ctx)
