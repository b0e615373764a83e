"""Scenario images as renderer specs: ``{"generator": "rendered", "kind", "seed", "difficulty", "facts"}``.

A generated scenario stores no pixels: each image is the recipe that draws it (the renderer kind,
its seed, the difficulty and the facts to draw). The runtime's image loader
(:mod:`mmenvs.toolsandbox.images`) renders these specs and caches the pixels per process; this
module builds the specs and re-exports the loader's rendering, cache and placeholder helpers for the
generator's own use (render once to check, skip pixels during the oracle check).
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from ..images import RENDERED as GENERATOR_NAME
from ..images import clear_cache, placeholder_images, render_spec
from ..renderers import RENDERERS

__all__ = ["GENERATOR_NAME", "clear_cache", "image_spec", "placeholder_images", "render_spec"]


def image_spec(kind: str, seed: int, difficulty: float, facts: Mapping[str, Any]) -> dict[str, Any]:
    """The scenario ``images`` entry that renders ``facts`` as a ``kind`` image."""
    if kind not in RENDERERS:
        raise ValueError(f"unknown image kind {kind!r}; valid kinds: {', '.join(sorted(RENDERERS))}")
    return {"generator": GENERATOR_NAME, "kind": kind, "seed": int(seed), "difficulty": round(float(difficulty), 3),
            "facts": json.loads(json.dumps(facts))}
