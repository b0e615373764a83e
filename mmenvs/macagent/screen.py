"""``ScreenTracker``: the MacAgent env's view of the desktop's screen, read from the backend only when needed.

A GUI step costs a screenshot, an accessibility tree and a half-size observation image. Most of that
can be skipped: the screen is read again only after something may have changed it (``invalidate()``),
an unchanged frame (the same array from a backend that dedups frames, or the same pixels) keeps its
accessibility tree and fitted observation, and a changed one is refitted only inside the box the
backend says changed. The observation arrays themselves are recycled once the caller drops them.

Low resolution: when the observation is at most half the screen along each axis (an RL policy's
128×128) and the backend composes small frames (``MacBackend.screenshot_scaled``), the observation is
made from a frame composed at low resolution, and the full-size screenshot only when someone asks for
it (``frame()``: ``env.render()``, screencapture). When every new full frame is wanted anyway
(``full_frames``: the env stores screenshots) the observation is fitted from those. Hit-testing, the
accessibility tree and all coordinates stay full-screen.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from mmenvs.core.images import FrameDiff
from mmenvs.core.memory import RecycledArrays
from mmenvs.core.spaces import FrameFitter
from mmenvs.macagent.backends.base import MacBackend


class ScreenTracker:
    """The current screenshot, its accessibility tree and its observation image, for one backend.

    ``obs_size`` is the (height, width) of observation images. ``read_a11y`` False skips the
    accessibility tree (``a11y()`` is then empty). ``scrub`` cleans the tree's text (host paths) once
    per read. ``on_new_frame(frame)`` is called with every frame whose pixels differ from the last one
    (and the first of each episode), e.g. to store it; it must copy what it keeps beyond the next change.
    """

    def __init__(self, backend: MacBackend, obs_size: tuple[int, int], *, read_a11y: bool = True,
                 scrub: Callable[[str], str] = str, on_new_frame: Callable[[np.ndarray], Any] | None = None,
                 low_res: bool = True, full_frames: bool = True) -> None:
        self.backend = backend
        self.read_a11y = bool(read_a11y)
        self._scrub = scrub
        self._on_new_frame = on_new_frame
        self._fit = FrameFitter(obs_size)  # reuses its buffers: no fresh megabytes per step
        self._diff = FrameDiff()  # for backends that do not dedup frames
        self._arrays = RecycledArrays((*self._fit.obs_size, 3))  # last step's image, once the caller drops it
        self._stale = True  # something may have changed the screen since it was read
        self._raw: Any = None  # the last array the backend returned (identity tells an unchanged screen)
        self._screen: np.ndarray | None = None  # the current frame (the backend's array, not a copy)
        self._a11y = ""
        self._fitted_source: np.ndarray | None = None  # the frame the fitter's output shows
        self._fitted: np.ndarray | None = None
        # Low resolution: the letterboxed content's (w, h) and where it sits; the backend composes it small
        # when it can (``screenshot_scaled``), and full frames are read only when asked for (``frame()``)
        # or wanted every change (``full_frames``: the env stores every screenshot).
        oh, ow = self._fit.obs_size
        sw, sh = (int(v) for v in getattr(backend, "screen_size", (0, 0)))
        scale = min(oh / sh, ow / sw) if sw > 0 and sh > 0 else 1.0
        self._content = (max(1, round(sw * scale)), max(1, round(sh * scale)))
        self._content_at = ((oh - self._content[1]) // 2, (ow - self._content[0]) // 2)
        # every full frame is made anyway when each is wanted (the env stores screenshots): fit those then
        self.full_frames = bool(full_frames)
        self.low_res = bool(low_res) and scale <= 0.5 and not self.full_frames  # off for good when the backend cannot
        self._small: np.ndarray | None = None  # the backend's current small frame (low resolution)
        self._full_stale = True  # low resolution: the full frame was not read since the screen may have changed
        self._lowres_out: np.ndarray | None = None

    def reset(self) -> None:
        """Forget the last episode's frames (so the backend may free them) and read afresh next time."""
        self._raw = self._screen = self._fitted_source = self._small = None
        self._a11y = ""
        self._stale = self._full_stale = True

    def invalidate(self) -> None:
        """Something may have changed the screen: the next read asks the backend again."""
        self._stale = self._full_stale = True

    def frame(self) -> np.ndarray | None:
        """The current screenshot, full size. Kept without a copy: it is valid until the backend's next
        changed frame (``MacBackend.screenshot``); copy it to keep it longer. At low resolution it is
        composed only now, when asked for."""
        if self._stale:
            self._refresh()
        if self.low_res and self._full_stale:
            self._read_full()
        return self._screen

    def a11y(self) -> str:
        """The accessibility tree of the current screen (scrubbed), or "" when not read."""
        if self._stale:
            self._refresh()
        return self._a11y

    def observation_image(self) -> np.ndarray:
        """The current frame fitted to ``obs_size``, in an array the caller owns (recycled once dropped).
        At low resolution it is the backend's small frame letterboxed, close to the full frame fitted."""
        if self._stale:
            self._refresh()
        if self.low_res:
            if self._small is not self._fitted_source or self._fitted is None:
                if self._lowres_out is None:
                    self._lowres_out = np.zeros((*self._fit.obs_size, 3), np.uint8)  # the bars stay black
                top, left = self._content_at
                cw, ch = self._content
                self._lowres_out[top:top + ch, left:left + cw] = self._small
                self._fitted_source, self._fitted = self._small, self._lowres_out
            image = self._arrays.take()
            np.copyto(image, self._fitted)
            return image
        frame = self.frame()
        if frame is not self._fitted_source or self._fitted is None:
            # refit only the changed box when the backend can say what changed since the frame fitted last
            changed = self.backend.damage_since(self._fitted_source) if self._fitted_source is not None else None
            self._fitted_source, self._fitted = frame, self._fit(frame, changed)
        image = self._arrays.take()
        np.copyto(image, self._fitted)
        return image

    def _refresh(self) -> None:
        with self.backend.observing():  # the frame and its tree, read back to back
            self._refresh_now()

    def _refresh_now(self) -> None:
        self._stale = False
        if self.low_res:
            self._full_stale = True
            small = self.backend.screenshot_scaled(self._content)
            if small is not None and np.shape(small) == (self._content[1], self._content[0], 3):
                if small is self._small:
                    return  # the backend handed back its cached frame: nothing on screen changed
                self._small = small
                if self.read_a11y:
                    self._a11y = self._scrub(self.backend.accessibility_tree())
                return
            self.low_res = False  # this backend (or this size) has no low-resolution path: full frames from now on
            self._fitted_source = None
        self._read_full(a11y=self.read_a11y)

    def _read_full(self, a11y: bool = False) -> None:
        """Read the full-size screenshot (and with ``a11y`` the tree, when the frame is a new array)."""
        self._full_stale = False
        raw = self.backend.screenshot()
        if raw is self._raw and self._screen is not None:
            return  # the backend handed back its cached frame: nothing on screen changed
        self._raw = raw
        screen = np.asarray(raw, dtype=np.uint8)
        # a backend that dedups frames hands out a new array only when the pixels changed
        changed = self._screen is None or self.backend.dedups_frames or self._diff.box(screen, self._screen) is not None
        if changed:
            self._screen = screen
            if self._on_new_frame is not None:
                self._on_new_frame(screen)
        if a11y:
            self._a11y = self._scrub(self.backend.accessibility_tree())
