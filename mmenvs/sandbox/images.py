"""Image tools for sandboxed code: images cross the sandbox by id, pixels as raw arrays.

Agent code never sees a host path.  It names images by their episode id (``img_0`` …) and gets
the pixels as a numpy array; arrays it makes are stored as new ids with their parents recorded,
so lineage metrics (VTC-Bench's effective chain) see code-mode work like tool-mode work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from mmenvs.core.images import ImageStore


def image_tools(store: ImageStore, *, op: str = "code") -> dict[str, Callable[..., Any]]:
    """``load_image`` and ``save_image`` tools over ``store``, ready for ``PythonSandbox(tools=...)``."""

    def load_image(image_id: str) -> np.ndarray:
        """Return the pixels of the image ``image_id`` (e.g. "img_0") as a uint8 array, H×W or H×W×C (RGB)."""
        if not isinstance(image_id, str):
            raise TypeError(f"load_image expects an image id such as 'img_0', got {type(image_id).__name__}")
        return store.get(image_id)

    def save_image(image: np.ndarray, parents: Iterable[str] = ()) -> str:
        """Store ``image`` (a uint8 array, H×W or H×W×3) as a new image and return its id.

        ``parents`` lists the ids it was made from (for example ``["img_0"]``).
        """
        if not isinstance(image, np.ndarray):
            raise TypeError(f"save_image expects a numpy array, got {type(image).__name__}")
        if image.dtype != np.uint8:
            raise ValueError(f"save_image expects dtype uint8, got {image.dtype}; use arr.clip(0, 255).astype('uint8')")
        return store.add(image, parents=list(parents), op=op)

    return {"load_image": load_image, "save_image": save_image}
