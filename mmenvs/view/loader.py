"""Reading a run folder (what ``mmenvs eval`` leaves behind) for the report, forgiving what a crash leaves.

A run folder holds ``episodes.jsonl`` (one record per finished episode), ``summary.json``,
``summary.png`` and ``episodes/<task>__a<attempt>/`` with ``steps.jsonl`` and ``images/<id>.png``.
Any of these may be missing or torn: an interrupted run has no summary (it is computed here from the
records), a torn last line (skipped), an episode folder without a record (the episode in flight,
listed as incomplete from its steps). Everything read here is untrusted: image ids that would leave
the episode folder are refused, text is cut to a size a browser renders comfortably.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from mmenvs.runner import episode_dir_name

#: Observation/action text longer than this is cut (with a marker saying how much was left out).
MAX_TEXT_CHARS = 20_000
#: An image id is a plain file stem (the image store's ids are ``img_<n>``); anything else is refused.
_IMAGE_ID = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$")
_ATTEMPT_SUFFIX = re.compile(r"^(?P<task>.+)__a(?P<attempt>\d+)$")


@dataclass
class ImageRef:
    """An image a step refers to: its id, the file if it is safely inside the episode folder and exists,
    and why not otherwise (``problem``: "missing" or a refusal)."""

    image_id: str
    path: Path | None
    problem: str | None = None


@dataclass
class Step:
    """One line of ``steps.jsonl`` as the report shows it."""

    number: int
    event: str
    action: Any
    text: str
    text_cut: int  # characters left out of ``text`` (0: complete)
    reward: float | None
    score: float | None
    terminated: bool
    truncated: bool
    info: dict[str, Any]
    images: list[ImageRef]


@dataclass
class Episode:
    """One episode of a run: its record (or one made from its steps when the record is missing) and its folder."""

    key: tuple[str, int]
    record: dict[str, Any]
    folder: Path | None
    incomplete: bool = False  # no record in episodes.jsonl: the run stopped during this episode

    @property
    def task_id(self) -> str:
        return self.key[0]

    @property
    def attempt(self) -> int:
        return self.key[1]

    @property
    def slug(self) -> str:
        """A file-name-safe id, unique within the run (the episode folder's name)."""
        return self.folder.name if self.folder is not None else episode_dir_name(self.task_id, self.attempt)

    @property
    def status(self) -> str:
        """"infra" (not scored), "error", "incomplete", "pass" or "fail"."""
        if self.record.get("infra_failure"):
            return "infra"
        if self.record.get("error"):
            return "error"
        if self.incomplete:
            return "incomplete"
        return "pass" if self.record.get("success") else "fail"


@dataclass
class Run:
    """A run folder: its records, summary (read or computed) and episodes, with what was wrong with them."""

    folder: Path
    env_id: str
    summary: dict[str, Any]
    summary_computed: bool
    episodes: list[Episode]
    plot: Path | None
    warnings: list[str] = field(default_factory=list)

    def episode(self, task_id: str, attempt: int) -> Episode | None:
        """The episode of ``task_id`` and ``attempt``, if the run has it."""
        if len(getattr(self, "_by_key", ())) != len(self.episodes):
            self._by_key = {e.key: e for e in self.episodes}
        return self._by_key.get((task_id, attempt))

    def has_ledger(self) -> bool:
        return any(isinstance(e.record.get("ledger"), dict) for e in self.episodes)


def cut_text(text: str, limit: int = MAX_TEXT_CHARS) -> tuple[str, int]:
    """``text`` cut to ``limit`` characters and how many were left out."""
    return (text, 0) if len(text) <= limit else (text[:limit], len(text) - limit)


def inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` (symlinks resolved) is ``folder`` or lies under it."""
    try:
        path.resolve().relative_to(folder.resolve())
        return True
    except (ValueError, OSError):
        return False


def _read_jsonl(path: Path, what: str, warnings: list[str]) -> list[Any]:
    """The JSON lines of ``path``; a bad line is skipped with a warning (a torn last line is the usual one)."""
    values = []
    with open(path, encoding="utf-8", errors="replace") as handle:
        lines = handle.read().splitlines()
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            values.append(json.loads(line))
        except json.JSONDecodeError:
            where = "the last line (torn: the run was interrupted while writing it)" if number == len(lines) else f"line {number}"
            warnings.append(f"{path.name}: {where} is not JSON; skipped")
    return values


def load_run(folder: str | Path) -> Run:
    """Read a run folder. Raises ``ValueError`` if it holds neither ``episodes.jsonl`` nor ``episodes/``."""
    folder = Path(folder)
    records_path, episodes_dir = folder / "episodes.jsonl", folder / "episodes"
    if not folder.is_dir() or not (records_path.is_file() or episodes_dir.is_dir()):
        raise ValueError(f"{folder}: not a run folder (expected episodes.jsonl or episodes/ written by `mmenvs eval`)")
    warnings: list[str] = []
    latest: dict[tuple[str, int], dict[str, Any]] = {}
    if records_path.is_file():
        for number, record in enumerate(_read_jsonl(records_path, "episodes.jsonl", warnings), 1):
            if not isinstance(record, dict) or "task_id" not in record or not isinstance(record.get("attempt"), int):
                warnings.append(f"episodes.jsonl: record {number} has no task_id/attempt; skipped")
                continue
            latest[(str(record["task_id"]), record["attempt"])] = record  # a re-run episode: its last record counts
    else:
        warnings.append("episodes.jsonl is missing: episodes are listed from their step files only")

    episodes: list[Episode] = []
    for key, record in latest.items():
        candidate = episodes_dir / episode_dir_name(*key)
        episodes.append(Episode(key, record, candidate if candidate.is_dir() and inside(candidate, folder) else None))
    known = {e.folder.name for e in episodes if e.folder is not None} | {episode_dir_name(*k) for k in latest}
    if episodes_dir.is_dir():
        for candidate in sorted(episodes_dir.iterdir()):
            if candidate.name in known or not candidate.is_dir() or not inside(candidate, folder):
                continue
            episode = _incomplete_episode(candidate, warnings)
            if episode is not None:
                episodes.append(episode)

    summary, computed = _summary(folder, [e.record for e in episodes if not e.incomplete], warnings)
    env_id = str(summary.get("env_id") or next((e.record.get("env_id") for e in episodes if e.record.get("env_id")), "") or "")
    plot = folder / "summary.png"
    return Run(folder, env_id, summary, computed, episodes, plot if plot.is_file() and inside(plot, folder) else None, warnings)


def _incomplete_episode(candidate: Path, warnings: list[str]) -> Episode | None:
    """An episode folder without a record: what its steps say (the run stopped during it)."""
    steps_path = candidate / "steps.jsonl"
    if not steps_path.is_file():
        return None
    lines = [line for line in _read_jsonl(steps_path, f"{candidate.name}/steps.jsonl", warnings) if isinstance(line, dict)]
    match = _ATTEMPT_SUFFIX.match(candidate.name)
    infos = [line.get("info") for line in lines if isinstance(line.get("info"), dict)]
    task_id = next((str(i["task_id"]) for i in infos if i.get("task_id") is not None), match["task"] if match else candidate.name)
    attempt = int(match["attempt"]) if match else 0
    last = infos[-1] if infos else {}
    record = {"task_id": task_id, "attempt": attempt, "score": _number(last.get("score")) or 0.0,
              "success": bool(last.get("success")), "steps": int(_number(last.get("step")) or 0),
              "task_meta": (infos[0].get("task_meta") if infos and isinstance(infos[0].get("task_meta"), dict) else {}),
              "error": None}
    warnings.append(f"episodes/{candidate.name}: no record in episodes.jsonl (the run stopped during this episode); "
                    f"shown from its {len(lines)} recorded step(s), not counted in the summary")
    return Episode((task_id, attempt), record, candidate, incomplete=True)


def _summary(folder: Path, records: list[dict[str, Any]], warnings: list[str]) -> tuple[dict[str, Any], bool]:
    """``summary.json``, or (missing or unreadable) the summary ``mmenvs eval`` would have written."""
    path = folder / "summary.json"
    if path.is_file():
        try:
            summary = json.loads(path.read_text(encoding="utf-8", errors="replace"))
            if isinstance(summary, dict):
                return summary, False
            warnings.append("summary.json is not a JSON object; the summary is computed from episodes.jsonl")
        except json.JSONDecodeError as exc:
            warnings.append(f"summary.json is not valid JSON ({exc.msg}); the summary is computed from episodes.jsonl")
    else:
        warnings.append("summary.json is missing (an interrupted run?); the summary is computed from episodes.jsonl")
    return compute_summary(records), True


def compute_summary(records: list[dict[str, Any]]) -> dict[str, Any]:
    """The runner's summary of ``records`` (the benchmark's own tables too when its env is importable)."""
    from mmenvs.core.metrics import summarize_attempts
    from mmenvs.runner import is_scored, summarize

    env_id = next((str(r["env_id"]) for r in records if r.get("env_id")), "")
    attempts = max([int(r.get("attempt", 0)) + 1 for r in records] or [1])
    clean = [r for r in records if not is_scored(r) or isinstance(r.get("score"), (int, float))]
    try:
        return summarize(env_id, clean, attempts)
    except Exception:  # an env that is not installed here: the metrics alone
        scored = [r for r in clean if is_scored(r)]
        summary = {"env_id": env_id, "attempts": attempts, **summarize_attempts(scored, sorted({1, attempts}))}
        summary["errors"] = sum(1 for r in scored if r.get("error"))
        summary["infra_failures"] = len(clean) - len(scored)
        return summary


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def image_ref(episode_folder: Path, image_id: Any) -> ImageRef:
    """Where image ``image_id`` of an episode is: refused unless it is a plain id whose file stays inside the folder."""
    text = str(image_id)
    if not isinstance(image_id, str) or not _IMAGE_ID.match(text) or ".." in text:
        return ImageRef(text, None, "refused: not a plain image id (a path outside the episode folder?)")
    images = episode_folder / "images"
    path = images / f"{text}.png"
    if not inside(path, images):
        return ImageRef(text, None, "refused: the file lies outside the episode folder")
    if not path.is_file():
        return ImageRef(text, None, "missing")
    return ImageRef(text, path)


def read_steps(episode: Episode, warnings: list[str] | None = None) -> Iterator[Step]:
    """The recorded steps of ``episode`` (none if it has no steps file), text cut to :data:`MAX_TEXT_CHARS`."""
    if episode.folder is None or not (episode.folder / "steps.jsonl").is_file():
        return
    notes = warnings if warnings is not None else []
    for index, line in enumerate(_read_jsonl(episode.folder / "steps.jsonl", "steps.jsonl", notes)):
        if not isinstance(line, dict):
            notes.append(f"steps.jsonl: line {index + 1} is not an object; skipped")
            continue
        info = line.get("info") if isinstance(line.get("info"), dict) else {}
        text, cut = cut_text(str(line.get("text", "")))
        ids = info.get("images") if isinstance(info.get("images"), list) else []
        yield Step(number=int(_number(line.get("step")) or index), event=str(line.get("event", "step")),
                   action=line.get("action"), text=text, text_cut=cut, reward=_number(line.get("reward")),
                   score=_number(info.get("score")), terminated=bool(line.get("terminated")),
                   truncated=bool(line.get("truncated")), info=info,
                   images=[image_ref(episode.folder, image_id) for image_id in ids])
