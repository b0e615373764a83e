"""Scenario images: a file under ``registry/`` or a spec drawn by one of the image generators.

A scenario's ``images`` entry is a registry path (``"toolsandbox/images/x.png"`` or ``{"path": …}``)
or a generator spec, a JSON object whose ``"generator"`` names an entry of :data:`GENERATORS`.
The one generator shipped is ``rendered``, the renderers of :mod:`mmenvs.toolsandbox.renderers`:

    {"generator": "rendered", "kind": "receipt", "seed": 7, "difficulty": 0.1, "facts": {...}}

``kind`` is a renderer (receipt, invoice, event_poster, ticket, business_card, chat_screenshot, …),
``facts`` what it draws (exactly as given), ``seed`` fixes the layout choices and ``difficulty``
(0–1, default 0) the degradation. The recipe is the image: rendering is deterministic, so the
repository stores no pixels. The facts are known to the scenario (its expected changes depend on
them) but the user simulator never reads them.

Rendered pixels are kept in a small per-process cache (the scenario generator renders an image to
check it, and the env that then loads the scenario reuses the pixels) and on disk
(:mod:`mmenvs.core.pixel_cache`: raw pixels with a checksum, which a new process reads back in ~0.5 ms
where drawing takes ~18 ms). Inside a :class:`placeholder_images` block, a spec that is not cached yet
gives a blank 8×8 image instead: replaying a reference solution never looks at pixels, so it need not
pay for drawing them.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from functools import lru_cache
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
from PIL import Image

from mmenvs.core import registry_path
from mmenvs.core.images import allowed_image_path, read_image_file
from mmenvs.core.pixel_cache import PixelDiskCache, cache_root, source_version

from .renderers import render

RENDERED = "rendered"
_CACHE_SIZE = 24  # a few scenarios' worth of images (3-6 each)
_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
_lock = threading.Lock()
_state = threading.local()
_PLACEHOLDER = np.full((8, 8, 3), 255, np.uint8)
_PLACEHOLDER.setflags(write=False)


_disk: PixelDiskCache | None = None
_fitted_disk: PixelDiskCache | None = None


def _rendering_sources() -> list[Path]:
    from mmenvs.core import fonts

    here = Path(__file__).parent
    return [*(here / "renderers").glob("*.py"), Path(fonts.__file__), *fonts.FONT_DIR.glob("*.ttf")]


def _library_versions() -> tuple[str, ...]:
    import cv2
    import PIL

    return np.__version__, PIL.__version__, cv2.__version__


@lru_cache(maxsize=None)
def _versions() -> tuple[str, str]:
    """The disk caches' versions: of the renderings, and of their letterboxed fittings (also the letterbox's source)."""
    from mmenvs.core import spaces

    sources, libraries = _rendering_sources(), _library_versions()
    return source_version(sources, *libraries), source_version([*sources, Path(spaces.__file__)], *libraries)


def _disk_cache() -> PixelDiskCache:
    """Renderings on disk, keyed by the renderers' and fonts' source (a changed renderer draws anew).
    Opened again when ``$MMENVS_CACHE_DIR`` changed since (a test or benchmark pointing it elsewhere)."""
    global _disk
    if _disk is None or _disk.root != cache_root():
        _disk = PixelDiskCache("toolsandbox-images", _versions()[0])
    return _disk


def _fitted_disk_cache() -> PixelDiskCache:
    """Renderings letterboxed to an observation size (as :func:`_disk_cache`)."""
    global _fitted_disk
    if _fitted_disk is None or _fitted_disk.root != cache_root():
        _fitted_disk = PixelDiskCache("toolsandbox-fitted", _versions()[1])
    return _fitted_disk


def _cache_key(spec: Mapping[str, Any]) -> str:
    return json.dumps({k: spec.get(k) for k in ("kind", "seed", "difficulty", "facts")}, sort_keys=True)


def render_spec(spec: Mapping[str, Any], where: str = "image") -> np.ndarray:
    """The pixels of a ``rendered`` spec (cached per process; the array is read-only).

    ``where`` names the scenario field for error messages.
    """
    for field, kind in (("kind", str), ("seed", int), ("facts", dict)):
        if not isinstance(spec.get(field), kind) or isinstance(spec.get(field), bool):
            raise ValueError(f"{where}.{field} must be a {kind.__name__} for a '{RENDERED}' image, got {str(spec.get(field))[:80]!r}")
    if not 0 <= spec["seed"] < 2**63:
        raise ValueError(f"{where}.seed must be an integer in 0..2**63-1, got {spec['seed']}")
    difficulty = spec.get("difficulty", 0.0)
    if isinstance(difficulty, bool) or not isinstance(difficulty, (int, float)) or not 0.0 <= difficulty <= 1.0:
        raise ValueError(f"{where}.difficulty must be a number in 0..1, got {str(difficulty)[:80]!r}")
    unknown = sorted(str(k)[:64] for k in spec if k not in ("generator", "kind", "seed", "difficulty", "facts"))
    if unknown:
        raise ValueError(f"{where}: unknown key(s) {unknown} for a '{RENDERED}' image; it takes kind, seed, difficulty, facts")
    key = _cache_key(spec)
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    pixels = _disk_cache().get(key)
    if pixels is None:
        try:
            result = render(spec["kind"], np.random.default_rng(spec["seed"]), facts=spec["facts"],
                            difficulty=float(spec.get("difficulty", 0.0)))
        except ValueError as exc:
            raise ValueError(f"{where}: {exc}") from None
        pixels = result.image
        pixels.setflags(write=False)
        _disk_cache().put(key, pixels)
    with _lock:
        _cache[key] = pixels
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return pixels


def fitted_image(spec: Mapping[str, Any] | str, pixels: np.ndarray, obs_size: tuple[int, int]) -> np.ndarray:
    """``letterbox(pixels, obs_size)`` for the observation, where ``pixels`` are the real pixels of the
    scenario image ``spec`` (never placeholders). A ``rendered`` spec's fitting is read from or kept in the
    disk cache (it is as deterministic as the rendering: ~0.3 ms to read, ~2 ms to fit); the array is read-only."""
    from mmenvs.core.spaces import letterbox

    height, width = (int(n) for n in obs_size)
    rendered = isinstance(spec, Mapping) and spec.get("generator") == RENDERED
    key = json.dumps({"image": _cache_key(spec), "obs_size": [height, width]}, sort_keys=True) if rendered else ""
    if rendered:
        cached = _fitted_disk_cache().get(key)
        if cached is not None and cached.shape == (height, width, 3):
            return cached
    fitted = letterbox(pixels, (height, width))
    fitted.setflags(write=False)
    if rendered:
        _fitted_disk_cache().put(key, fitted)
    return fitted


def clear_cache() -> None:
    """Forget every cached rendering (benchmarks use it to time cold renders)."""
    with _lock:
        _cache.clear()


class placeholder_images:
    """Within this block every ``rendered`` spec that is not cached yet loads as a blank 8×8 image.

    The block holds for the thread that enters it (:meth:`Scenario.pixels` carries it to the image threads)."""

    def __enter__(self) -> "placeholder_images":
        self._before = getattr(_state, "placeholder", False)
        _state.placeholder = True
        return self

    def __exit__(self, *exc: object) -> None:
        _state.placeholder = self._before


def placeholders_active() -> bool:
    """Whether this thread is inside a :class:`placeholder_images` block."""
    return bool(getattr(_state, "placeholder", False))


def _rendered(spec: Mapping[str, Any], where: str) -> np.ndarray:
    if placeholders_active():
        with _lock:
            cached = _cache.get(_cache_key(spec))
        return cached if cached is not None else _PLACEHOLDER
    return render_spec(spec, where)


#: Generator name → ``fn(spec, where) -> image`` (an H×W×3 array or a PIL image). Add an entry to
#: support another kind of spec.
GENERATORS: dict[str, Callable[[Mapping[str, Any], str], np.ndarray | Image.Image]] = {RENDERED: _rendered}


def image_roots(image_root: str | Path | None = None) -> tuple[Path, ...]:
    """The folders a scenario's image paths may name files in: the registry, and ``image_root`` when the
    user opted one in."""
    return (registry_path(),) + ((Path(image_root),) if image_root is not None else ())


def image_file(spec: Mapping[str, Any] | str, where: str, roots: tuple[Path, ...] | None = None) -> Path | None:
    """The checked file of a path image spec (None for a generator spec): inside ``roots`` (default: the
    registry), refused before anything is opened otherwise (``..``, absolute paths elsewhere, symlinks out)."""
    path = spec if isinstance(spec, str) else spec.get("path") if isinstance(spec, Mapping) else None
    if path is None:
        return None
    return allowed_image_path(path, roots or image_roots(), f"{where}.path" if isinstance(spec, Mapping) else where)


def render_image(spec: Mapping[str, Any] | str, where: str, roots: tuple[Path, ...] | None = None) -> np.ndarray:
    """The pixels of one scenario image: a registry path (str or {"path": …}; inside ``roots``, by default
    the registry) or a generator spec.

    ``where`` names the scenario field for error messages.
    """
    if isinstance(spec, str):
        spec = {"path": spec}
    if not isinstance(spec, Mapping):
        raise ValueError(f"{where} must be a registry path or an object with 'path' or 'generator', got {str(spec)[:80]!r}")
    if "path" in spec:
        return read_image_file(image_file(spec, where, roots), where)  # type: ignore[arg-type]
    kind = spec.get("generator")
    if kind not in GENERATORS:
        raise ValueError(f"{where}.generator must be one of {', '.join(GENERATORS)}, got {kind!r}")
    return np.asarray(GENERATORS[kind](spec, where))
