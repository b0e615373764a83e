"""Writing the report: an index page (summary, breakdowns, the episode table) and one page per episode.

Images are referenced by relative paths into the run folder by default: the report adds only text
next to a run (a 1,000-episode MacAgent run holds gigabytes of screenshots that are not copied) and
opens from disk with no network, as long as it stays beside its run. ``embed_images=True`` puts them
into the pages as data URLs instead (a report that can be mailed; each page carries its own images,
so size grows with the episode). One page per episode keeps every page small for big runs.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .html import as_text, badge, cell, esc, filters, fmt, key_values, page, table
from .loader import Episode, ImageRef, Run, Step, cut_text, load_run, read_steps
from .pointer import Mark, PointerTracker

#: Written into a report's pages folder: only a folder with it is replaced by a new report.
PAGES_MARKER = ".mmenvs-view"
STATUS_FILTERS = (("pass", "passed"), ("fail", "failed (incl. errors)"), ("error", "errors"),
                  ("infra", "infrastructure failures"), ("incomplete", "incomplete"))
#: Final-info keys shown in their own sections (the rest goes under "other final info").
_SECTION_KEYS = {"checkpoints", "checkpoints_passed", "entity_diff", "side_effects", "tool_calls", "effective_chain",
                 "chain_metrics", "images", "task_meta"}


@dataclass
class Images:
    """How a page refers to images: relative to the page's folder, or embedded as data URLs."""

    page_dir: Path
    embed: bool

    def src(self, path: Path) -> str:
        if self.embed:
            return "data:image/png;base64," + base64.b64encode(path.read_bytes()).decode("ascii")
        return Path(os.path.relpath(path.resolve(), self.page_dir.resolve())).as_posix()


def _image_size(path: Path) -> tuple[int, int] | None:
    try:
        from PIL import Image

        with Image.open(path) as image:
            return image.size
    except Exception:  # a truncated PNG: shown by the browser as broken, no marks
        return None


def default_output(run_dir: Path) -> Path:
    return run_dir / "report.html"


def pages_dir(out: Path) -> Path:
    """Where the episode pages of the report ``out`` go: ``<stem>_pages/`` beside it."""
    return out.with_name(out.stem + "_pages")


def _prepare_pages(out: Path) -> Path:
    folder = pages_dir(out)
    if folder.exists():
        if not (folder / PAGES_MARKER).is_file():
            raise ValueError(f"{folder} exists and is not a report's pages folder (no {PAGES_MARKER}); "
                             f"choose another --out or remove it")
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    (folder / PAGES_MARKER).write_text("pages of an `mmenvs view` report; replaced when the report is written again\n")
    return folder


def _resolve_out(out: str | Path | None, default: Path) -> Path:
    path = Path(out) if out else default
    if path.is_dir():
        path = path / "report.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    return path


# ------------------------------------------------------------------------------------------ one run
def write_report(run_dir: str | Path, out: str | Path | None = None, *, embed_images: bool = False) -> Path:
    """Write the report of one run (``out`` defaults to ``RUN_DIR/report.html``) and return its path."""
    run = load_run(run_dir)
    out = _resolve_out(out, default_output(run.folder))
    folder = _prepare_pages(out)
    episodes = sorted(run.episodes, key=lambda e: (e.task_id, e.attempt))
    for index, episode in enumerate(episodes):
        images = Images(folder, embed_images)
        neighbours = (episodes[index - 1] if index else None, episodes[index + 1] if index + 1 < len(episodes) else None)
        nav = _episode_nav(out, neighbours)
        body = nav + episode_body(run, episode, images)
        title = f"{episode.task_id} (attempt {episode.attempt}) · {run.env_id}"
        (folder / f"{episode.slug}.html").write_text(page(title, body), encoding="utf-8")
    index_images = Images(out.parent, embed_images)
    body = (f"<h1>{esc(run.env_id or 'run')} <span class=\"muted\">· {esc(run.folder.name)}</span></h1>"
            + _run_facts(run) + _warnings(run.warnings) + summary_section(run)
            + episode_table(run, episodes, folder.name) + breakdown_section(run, index_images))
    out.write_text(page(f"{run.env_id} · {run.folder.name}", body), encoding="utf-8")
    return out


def _episode_nav(out: Path, neighbours: tuple[Episode | None, Episode | None]) -> str:
    links = [f'<a href="../{esc(out.name)}">← all episodes</a>']
    for label, episode in zip(("previous", "next"), neighbours):
        if episode is not None:
            links.append(f'<a href="{esc(episode.slug)}.html">{label}: {esc(episode.task_id)} a{episode.attempt}</a>')
    return f'<nav class="top">{"".join(links)}</nav>'


def _run_facts(run: Run) -> str:
    agents = sorted({str(e.record.get("agent")) for e in run.episodes if e.record.get("agent")})
    return (f'<p class="muted">run folder <code>{esc(run.folder)}</code>; agent {esc(", ".join(agents) or "unknown")}; '
            f"{len(run.episodes)} episodes</p>")


def _warnings(warnings: list[str]) -> str:
    if not warnings:
        return ""
    items = "".join(f"<li>{esc(w)}</li>" for w in warnings[:50])
    more = f"<li>… and {len(warnings) - 50} more</li>" if len(warnings) > 50 else ""
    return f'<div class="warnings"><b>What this run left behind:</b><ul>{items}{more}</ul></div>'


def _metric_pairs(summary: dict[str, Any]) -> list[tuple[str, Any]]:
    """The headline metrics of a summary as (label, value), in display order."""
    pairs: list[tuple[str, Any]] = [("episodes", summary.get("episodes")), ("tasks", summary.get("tasks"))]
    pairs += [(k, summary[k]) for k in summary if k.startswith(("pass@", "pass^"))]
    low, high = (summary.get("mean_score_ci95") or [None, None])[:2]
    pairs += [("mean score", summary.get("mean_score")),
              ("95% interval", f"[{fmt(low)}, {fmt(high)}]" if low is not None else None),
              ("success rate", summary.get("success_rate")), ("errors", summary.get("errors", 0)),
              ("infrastructure failures", summary.get("infra_failures", 0))]
    if summary.get("resumed_episodes"):
        pairs.append(("resumed episodes", summary["resumed_episodes"]))
    ledger = summary.get("ledger")
    if isinstance(ledger, dict):
        pairs += [("model calls", ledger.get("calls")), ("prompt tokens", ledger.get("prompt_tokens")),
                  ("completion tokens", ledger.get("completion_tokens")), ("total tokens", ledger.get("total_tokens")),
                  ("cost (USD)", ledger.get("cost_usd"))]
    return pairs


def summary_section(run: Run) -> str:
    """Headline metrics as cards, infrastructure failure kinds and the ledger totals."""
    summary = run.summary
    note = ('<p class="muted">summary.json was not usable: these numbers are computed from the records '
            "in episodes.jsonl.</p>") if run.summary_computed else ""
    cards = "".join(f'<div class="card"><div class="value">{esc(v if isinstance(v, str) else fmt(v))}</div>'
                    f'<div class="label">{esc(k)}</div></div>' for k, v in _metric_pairs(summary) if v is not None)
    parts = [f"<h2>Summary</h2>{note}<div class=\"cards\" id=\"summary\">{cards}</div>"]
    kinds = summary.get("infra_failure_kinds")
    if isinstance(kinds, dict) and kinds:
        parts.append("<h3>Infrastructure failures (not scored)</h3>" + key_values(sorted(kinds.items())))
    if isinstance(summary.get("ledger"), dict):
        parts.append("<details><summary>ledger totals</summary>" + key_values(summary["ledger"].items()) + "</details>")
    return "".join(parts)


def breakdown_section(run: Run, images: Images) -> str:
    """The breakdown tables (mean score bars per category/tag/app/flow), the benchmark's own tables and summary.png."""
    parts = []
    for name, groups in (run.summary.get("breakdowns") or {}).items():
        if isinstance(groups, dict) and groups:
            parts.append(f"<h3>by {esc(name)}</h3>" + _metrics_table(groups))
    for name, groups in (run.summary.get("tables") or {}).items():
        if isinstance(groups, dict) and groups:
            parts.append(f"<h3>{esc(name)}</h3>" + _metrics_table(groups))
    if run.plot is not None:
        parts.append(f'<details open><summary>summary.png (the plot <code>mmenvs eval</code> wrote)</summary>'
                     f'<img class="plot" alt="summary.png" src="{esc(images.src(run.plot))}" style="max-width:min(100%, 900px)">'
                     "</details>")
    return ("<h2>Breakdowns</h2>" + "".join(parts)) if parts else ""


def _metrics_table(groups: dict[str, Any]) -> str:
    """Groups as rows, their scalar metrics as columns; a bar beside each mean score."""
    columns: list[str] = []
    for row in groups.values():
        if isinstance(row, dict):
            columns += [c for c, v in row.items() if isinstance(v, (int, float)) and c not in columns]
    if not columns:  # a flat table: group -> value
        return key_values(groups.items())
    intervals = any(isinstance(row, dict) and isinstance(row.get("mean_score_ci95"), list) for row in groups.values())
    rows = []
    for group, row in groups.items():
        row = row if isinstance(row, dict) else {}
        cells = [cell(group)]
        for column in columns:
            value = row.get(column)
            bar = (f'<span class="bar" style="width:{max(0.0, min(1.0, float(value))) * 80:.0f}px"></span>'
                   if column == "mean_score" and isinstance(value, (int, float)) else "")
            cells.append(cell(None, sort=value, numeric=True, markup=bar + esc(fmt(value))))
            if column == "mean_score" and intervals:
                low, high = (row.get("mean_score_ci95") or [None, None])[:2]
                cells.append(cell(f"[{fmt(low)}, {fmt(high)}]" if low is not None else "–", sort=low))
        rows.append(f"<tr>{''.join(cells)}</tr>")
    headers = [h for c in columns for h in ([c, "95% interval"] if c == "mean_score" and intervals else [c])]
    return table(["group", *headers], rows, sortable=True)


def _error_line(record: dict[str, Any]) -> str:
    """The line of an error that says what went wrong (a traceback's last line)."""
    failure = record.get("infra_failure")
    if isinstance(failure, dict):
        return f"infrastructure ({failure.get('kind', '?')}): {failure.get('error', '')}"
    error = record.get("error")
    if not error:
        return ""
    lines = [line for line in str(error).splitlines() if line.strip()]
    return lines[-1] if lines else str(error)


def _status_words(episode: Episode) -> str:
    status = episode.status
    return "fail error" if status == "error" else status


def episode_table(run: Run, episodes: list[Episode], pages: str) -> str:
    """The sortable, filterable table of all episodes, each row linking to its page."""
    ledger = run.has_ledger()
    headers = ["task", "attempt", "status", "score", "success", "steps"] + (["tokens", "cost (USD)"] if ledger else []) + ["error"]
    rows = []
    for episode in episodes:
        record = episode.record
        link = f'<a href="{esc(pages)}/{esc(episode.slug)}.html">{esc(episode.task_id)}</a>'
        cells = [cell(None, sort=episode.task_id, markup=link), cell(episode.attempt, numeric=True),
                 cell(None, sort=episode.status, markup=badge(episode.status)),
                 cell(fmt(record.get("score")), sort=record.get("score") if record.get("score") is not None else -1, numeric=True),
                 cell(fmt(record.get("success")) if record.get("success") is not None else "–"),
                 cell(record.get("steps", 0), numeric=True)]
        if ledger:
            entry = record.get("ledger") if isinstance(record.get("ledger"), dict) else {}
            cells += [cell(fmt(entry.get("total_tokens")), sort=entry.get("total_tokens") or 0, numeric=True),
                      cell(fmt(entry.get("cost_usd"), 4), sort=entry.get("cost_usd") or 0, numeric=True)]
        cells.append(cell(cut_text(_error_line(record), 300)[0]))
        rows.append(f'<tr class="episode" data-status="{esc(_status_words(episode))}">{"".join(cells)}</tr>')
    return ("<h2>Episodes</h2>" + filters("episodes", STATUS_FILTERS)
            + table(headers, rows, table_id="episodes", sortable=True))


# ------------------------------------------------------------------------------------------ an episode
def episode_body(run: Run, episode: Episode, images: Images) -> str:
    """An episode's facts, every step (action, pointer marks, observation, images, reward, score so far)
    and the final evaluation (checkpoints, entity diff, tool chain, the rest of the final info)."""
    record = episode.record
    head = (f'<h1>{esc(episode.task_id)} <span class="muted">attempt {episode.attempt}</span> {badge(episode.status)}</h1>'
            f'<p class="muted">{esc(run.env_id)} · {esc(run.folder.name)} · episode folder '
            f'<code>{esc(episode.folder.name if episode.folder else "(none)")}</code></p>')
    facts = key_values([(k, record.get(k)) for k in ("score", "success", "steps", "return", "terminated", "truncated",
                                                       "seed", "agent") if k in record]
                       + [("task", record.get("task_meta"))] * bool(record.get("task_meta"))
                       + [("ledger", record.get("ledger"))] * isinstance(record.get("ledger"), dict))
    parts = [head, facts]
    if episode.incomplete:
        parts.append('<div class="warnings">No record in episodes.jsonl: the run stopped during this episode; '
                     "these are the steps recorded before it stopped.</div>")
    if record.get("infra_failure"):
        parts.append(f'<h2>Infrastructure failure</h2><pre class="error-text">{esc(as_text(record["infra_failure"]))}</pre>')
    if record.get("error"):
        parts.append(f'<h2>Error</h2><pre class="error-text">{esc(cut_text(str(record["error"]))[0])}</pre>')
    warnings: list[str] = []
    steps = list(read_steps(episode, warnings))
    parts.append(_warnings(warnings))
    parts.append("<h2>Steps</h2>")
    if not steps:
        parts.append('<p class="muted" id="no-steps">No steps were recorded for this episode '
                     "(recording was off, or it failed before its first step).</p>")
    tracker = PointerTracker() if run.env_id.startswith("MacAgent") else None
    screen: ImageRef | None = None  # the last screenshot the agent saw: where a GUI action points
    for step in steps:
        parts.append(_step_html(step, screen, tracker, images))
        usable = [ref for ref in step.images if ref.path is not None]
        if usable:
            screen = usable[-1]
        elif step.images:
            screen = step.images[-1]
    final = _final_info(steps, record)
    parts.append(final_sections(final))
    return "".join(parts)


def _final_info(steps: list[Step], record: dict[str, Any]) -> dict[str, Any]:
    """The last step's info, completed with the record's final info and, for evaluation results the env
    reports only when fresh (an entity diff), the latest step that has them."""
    final: dict[str, Any] = dict(record.get("final_info") or {}) if isinstance(record.get("final_info"), dict) else {}
    if steps:
        final.update(steps[-1].info)
        for key in ("entity_diff", "checkpoints", "tool_calls"):
            if key not in final:
                found = next((s.info[key] for s in reversed(steps) if key in s.info), None)
                if found is not None:
                    final[key] = found
    return final


def _image_html(ref: ImageRef, images: Images, marks: list[Mark] | None = None, caption: str | None = None) -> str:
    label = esc(caption or ref.image_id)
    if ref.path is None:
        return f'<div class="noimage" data-image="{esc(ref.image_id)}">image {esc(ref.image_id)}: {esc(ref.problem)}</div>'
    overlay = ""
    size = _image_size(ref.path) if marks else None
    if marks and size:
        overlay = _marks_svg(marks, size)
    return (f'<figure><div class="shot"><img loading="lazy" alt="{label}" src="{esc(images.src(ref.path))}">{overlay}</div>'
            f"<figcaption>{label}</figcaption></figure>")


def _marks_svg(marks: list[Mark], size: tuple[int, int]) -> str:
    """An SVG over the screenshot in its pixel coordinates (it scales with the image)."""
    width, height = size
    radius = max(8.0, min(width, height) / 40)
    colours = {"click": "#ff1f5a", "drag": "#ff8c00", "scroll": "#1a7f37", "move": "#0969da", "down": "#8250df", "up": "#8250df"}
    shapes = []
    for number, mark in enumerate(marks, 1):
        colour = colours.get(mark.kind, "#ff1f5a")
        if mark.kind == "drag" and mark.x0 is not None and mark.y0 is not None:
            shapes.append(f'<line x1="{mark.x0}" y1="{mark.y0}" x2="{mark.x}" y2="{mark.y}" stroke="{colour}" '
                          f'stroke-width="{radius / 2.5:.1f}" stroke-dasharray="{radius:.0f} {radius / 2:.0f}"/>')
            shapes.append(f'<circle cx="{mark.x0}" cy="{mark.y0}" r="{radius / 2:.1f}" fill="{colour}"/>')
        filled = mark.kind in ("click", "down")
        shapes.append(f'<circle class="mark {esc(mark.kind)}" data-x="{mark.x}" data-y="{mark.y}" cx="{mark.x}" cy="{mark.y}" '
                      f'r="{radius:.1f}" fill="{colour if filled else "none"}" fill-opacity="0.35" stroke="{colour}" '
                      f'stroke-width="{radius / 3:.1f}"><title>{esc(mark.label)} at ({mark.x}, {mark.y})</title></circle>')
        shapes.append(f'<text x="{mark.x + radius * 1.3:.0f}" y="{mark.y - radius * 1.1:.0f}" font-size="{radius * 1.8:.0f}" '
                      f'font-family="sans-serif" font-weight="bold" fill="{colour}" stroke="#fff" stroke-width="{radius / 6:.1f}" '
                      f'paint-order="stroke">{number}</text>')
    return (f'<svg class="marks" viewBox="0 0 {width} {height}" preserveAspectRatio="none" '
            f'xmlns="http://www.w3.org/2000/svg">{"".join(shapes)}</svg>')


def _step_html(step: Step, screen: ImageRef | None, tracker: PointerTracker | None, images: Images) -> str:
    is_reset = step.event == "reset"
    header = [f'<span class="title">{"Reset (the task)" if is_reset else f"Step {step.number}"}</span>']
    if not is_reset:
        header.append(f"<span>reward {esc(fmt(step.reward))}</span>")
    header.append(f'<span>score so far <b class="score">{esc(fmt(step.score))}</b></span>')
    if step.terminated:
        header.append("<span class=\"muted\">terminated</span>")
    if step.truncated:
        header.append("<span class=\"muted\">truncated</span>")
    error = step.info.get("action_error")
    if error:
        header.append(f'<span class="error-text">action error ({esc(step.info.get("action_error_kind"))}): {esc(cut_text(str(error), 500)[0])}</span>')
    left, right = [], []
    if not is_reset:
        action_text, action_cut = cut_text(as_text(step.action))
        left.append(f'<div class="label">action</div><pre class="action">{esc(action_text)}</pre>{_cut_note(action_cut)}')
        marks = tracker.marks(step.action, _screen_size(screen)) if tracker is not None else []
        if marks:
            listed = "; ".join(f"{n}. {m.label} at ({m.x}, {m.y})" + (f" from ({m.x0}, {m.y0})" if m.kind == "drag" else "")
                               for n, m in enumerate(marks, 1))
            left.append(f'<div class="label">pointer</div><div class="pointer">{esc(listed)}</div>')
            if screen is not None:
                right.append('<div class="label">screen the action was taken on</div>'
                             + _image_html(screen, images, marks, f"{screen.image_id} (before this step)"))
    left.append(f'<div class="label">{"task / first observation" if is_reset else "observation"}</div>'
                f'<pre class="observation">{esc(step.text)}</pre>{_cut_note(step.text_cut)}')
    if step.images:
        right.append(f'<div class="label">{"images" if is_reset else "new images"}</div>'
                     + "".join(_image_html(ref, images) for ref in step.images))
    return (f'<section class="step" id="step-{step.number}" data-step="{step.number}"><header>{"".join(header)}</header>'
            f'<div class="body"><div>{"".join(left)}</div><div>{"".join(right)}</div></div></section>')


def _screen_size(screen: ImageRef | None) -> tuple[int, int] | None:
    return _image_size(screen.path) if screen is not None and screen.path is not None else None


def _cut_note(cut: int) -> str:
    return f'<div class="cut">… {cut:,} more characters cut here (the full text is in the episode\'s steps.jsonl)</div>' if cut else ""


# ------------------------------------------------------------------------------------------ evaluation
def final_sections(final: dict[str, Any]) -> str:
    """The final evaluation as the benchmark reports it: checkpoints, entity diff, tool chain, the rest."""
    parts = []
    if isinstance(final.get("checkpoints"), list):
        parts.append(_checkpoints(final["checkpoints"], final.get("checkpoints_passed")))
    if isinstance(final.get("entity_diff"), dict):
        parts.append(_entity_diff(final["entity_diff"], final.get("side_effects")))
    if isinstance(final.get("tool_calls"), list):
        parts.append(_tool_chain(final["tool_calls"], final.get("effective_chain"), final.get("chain_metrics")))
    rest = {k: v for k, v in final.items() if k not in _SECTION_KEYS}
    if rest:
        text, cut = cut_text(as_text(rest))
        parts.append(f"<details><summary>other final info</summary><pre>{esc(text)}</pre>{_cut_note(cut)}</details>")
    return ("<h2>Final evaluation</h2>" + "".join(parts)) if parts else ""


def _checkpoints(checkpoints: list[Any], passed: Any) -> str:
    rows = []
    for point in checkpoints:
        if not isinstance(point, dict):
            continue
        ok = bool(point.get("passed"))
        rows.append(f'<tr class="checkpoint {"pass" if ok else "fail"}">{cell(point.get("name"))}{cell(point.get("tag"))}'
                    f'{cell(None, markup=badge("pass" if ok else "fail"))}{cell(cut_text(as_text(point.get("got")), 2000)[0])}'
                    f'{cell(fmt(point.get("guard")))}{cell(cut_text(str(point.get("error") or ""), 2000)[0])}</tr>')
    total = f" ({esc(passed)} of {len(rows)} passed)" if passed is not None else ""
    return (f'<h3 id="checkpoints">Checkpoints{total}</h3>'
            + table(["checkpoint", "tag", "result", "got", "guard", "error"], rows))


def _entity_diff(diff: dict[str, Any], side_effects: Any) -> str:
    parts = [f'<h3 id="entity-diff">Entity diff</h3><p>F1 {esc(fmt(diff.get("f1")))} · precision {esc(fmt(diff.get("precision")))} · '
             f'recall {esc(fmt(diff.get("recall")))} · matched {esc(fmt(diff.get("matched")))} of {esc(diff.get("n_expected"))} '
             f'expected, {esc(diff.get("n_actual"))} changed rows</p>']
    for spec in diff.get("per_spec") or []:
        if not isinstance(spec, dict):
            continue
        parts.append(f'<h4>{esc(spec.get("op"))} in <code>{esc(spec.get("table"))}</code>: {esc(spec.get("actual"))} of '
                     f'{esc(spec.get("expected"))} · score {esc(fmt(spec.get("score")))}</h4>')
        rows = []
        for pair in spec.get("pairs") or []:
            if not isinstance(pair, dict):
                continue
            score = pair.get("score") if isinstance(pair.get("score"), (int, float)) else 0.0
            kind = "matched" if pair.get("actual") is not None and score >= 1.0 else "partial" if score > 0 else "unmatched"
            expected = pair.get("expected") if isinstance(pair.get("expected"), dict) else {}
            actual = pair.get("actual") if isinstance(pair.get("actual"), dict) else {}
            columns = pair.get("columns") if isinstance(pair.get("columns"), dict) else {}
            column_rows = []
            for name in list(expected) + [c for c in actual if c not in expected]:
                column_score = columns.get(name)
                state = ("matched" if isinstance(column_score, (int, float)) and column_score >= 1.0 else
                         "partial" if isinstance(column_score, (int, float)) and column_score > 0 else "unmatched")
                column_rows.append(f'<tr class="{state}">{cell(name)}{cell(_compact(expected.get(name)) if name in expected else "–")}'
                                   f'{cell(_compact(actual.get(name)) if name in actual else "(none)")}'
                                   f'{cell(fmt(column_score), numeric=True)}</tr>')
            columns_table = table(["column", "expected", "actual", "score"], column_rows)
            rows.append(f'<tr class="diff-row {kind}">{cell(kind)}{cell(pair.get("actual_id") if pair.get("actual_id") is not None else "–")}'
                        f'{cell(fmt(score), numeric=True)}{cell(None, markup=columns_table)}</tr>')
        parts.append(table(["row", "actual id", "score", "columns"], rows))
    for title, entries in (("Changes no expected row matched", diff.get("unmatched")),
                           ("Side effects (changes in tables no expectation names)", diff.get("side_effects") or side_effects)):
        if isinstance(entries, list) and entries:
            rows = [f'<tr class="diff-row unmatched">{cell(e.get("table") if isinstance(e, dict) else "")}'
                    f'{cell(e.get("op") if isinstance(e, dict) else "")}{cell(as_text(e.get("id") if isinstance(e, dict) else e))}</tr>'
                    for e in entries]
            parts.append(f"<h4>{esc(title)}</h4>" + table(["table", "op", "row id"], rows))
    return "".join(parts)


def _compact(value: Any) -> str:
    """A value on one line (JSON for structures), cut to 2,000 characters."""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=repr)
    return cut_text(text, 2000)[0]


def _tool_chain(calls: list[Any], effective: Any, metrics: Any) -> str:
    chosen = {i for i in effective if isinstance(i, int)} if isinstance(effective, list) else set()
    rows = []
    for index, call in enumerate(calls):
        if not isinstance(call, dict):
            continue
        kind = "effective" if index in chosen else "ineffective"
        inputs = ", ".join(str(i) for i in call.get("inputs") or [])
        rows.append(f'<tr class="tool-call {kind}">{cell(index, numeric=True)}{cell(call.get("tool"))}'
                    f'{cell(cut_text(as_text(call.get("params")), 2000)[0])}{cell(inputs + " → " + str(call.get("output")))}'
                    f'{cell(fmt(call.get("ok")))}{cell("effective" if index in chosen else "–")}</tr>')
    parts = [f'<h3 id="tool-chain">Tool chain ({len(chosen)} of {len(rows)} calls effective: they lead to the answer)</h3>',
             table(["#", "tool", "parameters", "inputs → output", "ok", "effective"], rows)]
    if isinstance(metrics, dict):
        parts.append("<details><summary>chain metrics</summary>" + key_values(metrics.items()) + "</details>")
    return "".join(parts)


# ------------------------------------------------------------------------------------------ two runs
def write_comparison(run_a: str | Path, run_b: str | Path, out: str | Path | None = None, *,
                     embed_images: bool = False) -> Path:
    """Write a side-by-side report of two runs (``out`` defaults to ``RUN_A/compare-<B>.html``)."""
    a, b = load_run(run_a), load_run(run_b)
    from mmenvs.runner import safe_file_name

    out = _resolve_out(out, a.folder / f"compare-{safe_file_name(b.folder.name)}.html")
    folder = _prepare_pages(out)
    keys = sorted({e.key for e in a.episodes} | {e.key for e in b.episodes})
    rows = []
    for key in keys:
        left, right = a.episode(*key), b.episode(*key)
        slug = (left or right).slug  # type: ignore[union-attr]
        images = Images(folder, embed_images)
        columns = "".join(f'<div class="side"><h2>{esc(label)}: {esc(run.folder.name)}</h2>'
                          + (episode_body(run, episode, images) if episode is not None
                             else f'<p class="muted">This run has no episode {esc(key[0])} attempt {key[1]}.</p>') + "</div>"
                          for label, run, episode in (("A", a, left), ("B", b, right)))
        body = f'<nav class="top"><a href="../{esc(out.name)}">← comparison</a></nav><div class="pair">{columns}</div>'
        (folder / f"{slug}.html").write_text(page(f"{key[0]} a{key[1]}: {a.folder.name} vs {b.folder.name}", body), encoding="utf-8")
        rows.append(_pair_row(key, left, right, f"{folder.name}/{slug}.html"))
    notes = list(f"A: {w}" for w in a.warnings) + list(f"B: {w}" for w in b.warnings)
    if a.env_id != b.env_id:
        notes.insert(0, f"the runs are of different envs ({a.env_id} and {b.env_id})")
    only_a = {e.task_id for e in a.episodes} - {e.task_id for e in b.episodes}
    only_b = {e.task_id for e in b.episodes} - {e.task_id for e in a.episodes}
    if only_a or only_b:
        notes.append(f"tasks only in A: {len(only_a)}, only in B: {len(only_b)} (compared on the {len(keys)} episodes of both)")
    body = (f'<h1>{esc(a.folder.name)} <span class="muted">vs</span> {esc(b.folder.name)}</h1>'
            f'<p class="muted">A: <code>{esc(a.folder)}</code> ({esc(a.env_id)}) · B: <code>{esc(b.folder)}</code> ({esc(b.env_id)})</p>'
            + _warnings(notes) + _summary_comparison(a, b)
            + "<h2>Episodes</h2>" + filters("pairs", (("improved", "B better"), ("regressed", "B worse"), ("same", "same score"),
                                                      ("only-a", "only in A"), ("only-b", "only in B")))
            + table(["task", "attempt", "score A", "score B", "Δ (B − A)", "status A", "status B", "steps A", "steps B"], rows,
                    table_id="pairs", sortable=True))
    out.write_text(page(f"{a.folder.name} vs {b.folder.name}", body), encoding="utf-8")
    return out


def _summary_comparison(a: Run, b: Run) -> str:
    left, right = dict(_metric_pairs(a.summary)), dict(_metric_pairs(b.summary))
    rows = []
    for name in list(left) + [n for n in right if n not in left]:
        x, y = left.get(name), right.get(name)
        delta = y - x if isinstance(x, (int, float)) and isinstance(y, (int, float)) and not isinstance(x, bool) else None
        shown = (f'<span class="{"delta-up" if delta > 0 else "delta-down" if delta < 0 else ""}">{esc(fmt(delta))}</span>'
                 if delta is not None else "")
        rows.append(f"<tr>{cell(name)}{cell(x if isinstance(x, str) else fmt(x), numeric=True)}"
                    f"{cell(y if isinstance(y, str) else fmt(y), numeric=True)}{cell(None, numeric=True, markup=shown)}</tr>")
    return "<h2>Summary</h2>" + table(["metric", "A", "B", "Δ (B − A)"], rows)


def _pair_row(key: tuple[str, int], left: Episode | None, right: Episode | None, href: str) -> str:
    def score(episode: Episode | None) -> float | None:
        value = episode.record.get("score") if episode is not None else None
        return float(value) if isinstance(value, (int, float)) else None

    x, y = score(left), score(right)
    delta = y - x if x is not None and y is not None else None
    status = ("only-a" if right is None else "only-b" if left is None else
              "improved" if delta is not None and delta > 0 else "regressed" if delta is not None and delta < 0 else "same")
    shown = f'<span class="{"delta-up" if (delta or 0) > 0 else "delta-down" if (delta or 0) < 0 else ""}">{esc(fmt(delta))}</span>'
    cells = [cell(None, sort=key[0], markup=f'<a href="{esc(href)}">{esc(key[0])}</a>'), cell(key[1], numeric=True),
             cell(fmt(x), sort=x if x is not None else -1, numeric=True), cell(fmt(y), sort=y if y is not None else -1, numeric=True),
             cell(None, sort=delta if delta is not None else 0, numeric=True, markup=shown)]
    for episode in (left, right):
        cells.append(cell(None, sort=episode.status if episode else "", markup=badge(episode.status) if episode else "–"))
    for episode in (left, right):
        cells.append(cell(episode.record.get("steps", 0) if episode else "–", numeric=True))
    return f'<tr class="pair-row" data-status="{status}">{"".join(cells)}</tr>'


def report_roots(out: Path, runs: list[Path]) -> list[Path]:
    """The folders a served report may read: its own folder and its runs."""
    return [out.parent.resolve(), *(run.resolve() for run in runs)]

