"""Episode recorder: one JSONL line per step plus PNGs of new images, flushed as it goes.

A worker that dies mid-episode loses at most the step in flight: every finished step is on disk.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from .images import ImageStore


def to_jsonable(value: Any) -> Any:
    """``value`` with numpy scalars/arrays, tuples, sets and paths turned into JSON types."""
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [to_jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return {"ndarray": list(value.shape), "dtype": str(value.dtype)} if value.size > 64 else value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    return repr(value)


class EpisodeRecorder:
    """Records one episode under ``folder``: ``steps.jsonl`` and ``images/<id>.png``.

    ``record_reset`` writes the first line (step 0); ``record_step`` appends one line per step. Each
    line is flushed and fsynced before the call returns.
    """

    def __init__(self, folder: str | Path, *, save_images: bool = True) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)
        self.save_images = save_images
        self._file = open(self.folder / "steps.jsonl", "a", encoding="utf-8")
        self._saved: set[str] = set()

    def record_reset(self, observation: dict[str, Any], info: dict[str, Any], images: ImageStore | None = None) -> None:
        self._write({"step": 0, "event": "reset", "text": observation.get("text", ""), "info": to_jsonable(info)}, images, info)

    def record_step(
        self,
        action: Any,
        observation: dict[str, Any],
        reward: float,
        terminated: bool,
        truncated: bool,
        info: dict[str, Any],
        images: ImageStore | None = None,
    ) -> None:
        line = {
            "step": info.get("step"),
            "event": "step",
            "action": to_jsonable(action),
            "text": observation.get("text", ""),
            "reward": float(reward),
            "terminated": bool(terminated),
            "truncated": bool(truncated),
            "info": to_jsonable(info),
        }
        self._write(line, images, info)

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def __enter__(self) -> "EpisodeRecorder":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _write(self, line: dict[str, Any], images: ImageStore | None, info: dict[str, Any]) -> None:
        if self.save_images and images is not None:
            for image_id in info.get("images", []):
                if image_id not in self._saved and image_id in images:
                    images.export_png(image_id, self.folder / "images" / f"{image_id}.png")
                    self._saved.add(image_id)
        self._file.write(json.dumps(line, ensure_ascii=False) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())


def read_episode(folder: str | Path) -> list[dict[str, Any]]:
    """The recorded lines of an episode folder (a torn last line, from a crash, is skipped)."""
    lines = []
    with open(Path(folder) / "steps.jsonl", encoding="utf-8") as handle:
        for raw in handle:
            try:
                lines.append(json.loads(raw))
            except json.JSONDecodeError:
                break
    return lines
