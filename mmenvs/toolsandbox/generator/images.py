"""Scenario images as renderer specs: ``{"generator": "rendered", "kind", "seed", "difficulty", "facts"}``.

A generated scenario stores no pixels: each image is the recipe that draws it (the renderer kind,
its seed, the difficulty and the facts to draw). Rendering is deterministic, so the recipe is the
image. Importing this module adds the ``rendered`` generator to the runtime's image generators
(``mmenvs.toolsandbox.images.GENERATORS``), so the runtime's scenario loader accepts these specs.
Rendered pixels are kept in a small per-process cache: the generator renders an image once to check
it, and the env that then loads the scenario reuses those pixels instead of drawing them again.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from typing import Any, Mapping

import numpy as np

from .. import images as runtime_images
from ..renderers import RENDERERS, render

GENERATOR_NAME = "rendered"
_CACHE_SIZE = 96  # a few scenarios' worth of images (3-6 each)
_cache: "OrderedDict[str, np.ndarray]" = OrderedDict()
_lock = threading.Lock()


def image_spec(kind: str, seed: int, difficulty: float, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario ``images`` entry that renders ``facts`` as a ``kind`` image."""
    if kind not in RENDERERS:
        raise ValueError(f"unknown image kind {kind!r}; valid kinds: {', '.join(sorted(RENDERERS))}")
    return {"generator": GENERATOR_NAME, "kind": kind, "seed": int(seed), "difficulty": round(float(difficulty), 3),
            "facts": json.loads(json.dumps(facts))}


def _key(spec: Mapping[str, Any]) -> str:
    return json.dumps({k: spec.get(k) for k in ("kind", "seed", "difficulty", "facts")}, sort_keys=True)


def render_spec(spec: Mapping[str, Any], where: str = "image") -> np.ndarray:
    """The pixels of a ``rendered`` spec (cached per process; the array is read-only)."""
    for field, kind in (("kind", str), ("seed", int), ("facts", dict)):
        if not isinstance(spec.get(field), kind) or isinstance(spec.get(field), bool):
            raise ValueError(f"{where}.{field} must be a {kind.__name__} for a '{GENERATOR_NAME}' image, got {spec.get(field)!r}")
    key = _key(spec)
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


_state = threading.local()
_PLACEHOLDER = np.full((8, 8, 3), 255, np.uint8)
_PLACEHOLDER.setflags(write=False)


class placeholder_images:
    """Within this block the runtime gets a blank 8×8 image for every ``rendered`` spec that is not
    cached yet: checking a reference solution never looks at pixels, so it need not pay for them."""

    def __enter__(self) -> "placeholder_images":
        self._before = getattr(_state, "placeholder", False)
        _state.placeholder = True
        return self

    def __exit__(self, *exc: object) -> None:
        _state.placeholder = self._before


def _runtime_generator(spec: Mapping[str, Any], where: str) -> np.ndarray:
    if getattr(_state, "placeholder", False):
        with _lock:
            cached = _cache.get(_key(spec))
        return cached if cached is not None else _PLACEHOLDER
    return render_spec(spec, where)


# The runtime's loader looks generators up by name in this table.
runtime_images.GENERATORS.setdefault(GENERATOR_NAME, _runtime_generator)
