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
check it, and the env that then loads the scenario reuses the pixels). Inside a
:class:`placeholder_images` block, a spec that is not cached yet gives a blank 8×8 image instead:
replaying a reference solution never looks at pixels, so it need not pay for drawing them.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any, Callable, Mapping

import numpy as np
from PIL import Image

from mmenvs.core import registry_path

from .renderers import render

RENDERED = "rendered"
_CACHE_SIZE = 24  # a few scenarios' worth of images (3-6 each)
_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
_lock = threading.Lock()
_state = threading.local()
_PLACEHOLDER = np.full((8, 8, 3), 255, np.uint8)
_PLACEHOLDER.setflags(write=False)


def _cache_key(spec: Mapping[str, Any]) -> str:
    return json.dumps({k: spec.get(k) for k in ("kind", "seed", "difficulty", "facts")}, sort_keys=True)


def render_spec(spec: Mapping[str, Any], where: str = "image") -> np.ndarray:
    """The pixels of a ``rendered`` spec (cached per process; the array is read-only).

    ``where`` names the scenario field for error messages.
    """
    for field, kind in (("kind", str), ("seed", int), ("facts", dict)):
        if not isinstance(spec.get(field), kind) or isinstance(spec.get(field), bool):
            raise ValueError(f"{where}.{field} must be a {kind.__name__} for a '{RENDERED}' image, got {spec.get(field)!r}")
    key = _cache_key(spec)
    with _lock:
        cached = _cache.get(key)
        if cached is not None:
            _cache.move_to_end(key)
            return cached
    try:
        result = render(spec["kind"], np.random.default_rng(spec["seed"]), facts=spec["facts"],
                        difficulty=float(spec.get("difficulty", 0.0)))
    except ValueError as exc:
        raise ValueError(f"{where}: {exc}") from None
    pixels = result.image
    pixels.setflags(write=False)
    with _lock:
        _cache[key] = pixels
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return pixels


def clear_cache() -> None:
    """Forget every cached rendering (benchmarks use it to time cold renders)."""
    with _lock:
        _cache.clear()


class placeholder_images:
    """Within this block every ``rendered`` spec that is not cached yet loads as a blank 8×8 image."""

    def __enter__(self) -> "placeholder_images":
        self._before = getattr(_state, "placeholder", False)
        _state.placeholder = True
        return self

    def __exit__(self, *exc: object) -> None:
        _state.placeholder = self._before


def _rendered(spec: Mapping[str, Any], where: str) -> np.ndarray:
    if getattr(_state, "placeholder", False):
        with _lock:
            cached = _cache.get(_cache_key(spec))
        return cached if cached is not None else _PLACEHOLDER
    return render_spec(spec, where)


#: Generator name → ``fn(spec, where) -> image`` (an H×W×3 array or a PIL image). Add an entry to
#: support another kind of spec.
GENERATORS: dict[str, Callable[[Mapping[str, Any], str], np.ndarray | Image.Image]] = {RENDERED: _rendered}


def render_image(spec: Mapping[str, Any] | str, where: str) -> np.ndarray:
    """The pixels of one scenario image: a registry path (str or {"path": …}) or a generator spec.

    ``where`` names the scenario field for error messages.
    """
    if isinstance(spec, str):
        spec = {"path": spec}
    if not isinstance(spec, Mapping):
        raise ValueError(f"{where} must be a registry path or an object with 'path' or 'generator', got {spec!r}")
    if "path" in spec:
        path = Path(str(spec["path"]))
        full = path if path.is_absolute() else registry_path(*path.parts)
        try:
            with Image.open(full) as image:
                return np.asarray(image.convert("RGB"))
        except OSError as exc:
            raise ValueError(f"{where}: cannot read image file {full}: {exc}") from None
    kind = spec.get("generator")
    if kind not in GENERATORS:
        raise ValueError(f"{where}.generator must be one of {', '.join(GENERATORS)}, got {kind!r}")
    return np.asarray(GENERATORS[kind](spec, where))
