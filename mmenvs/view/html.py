"""HTML building blocks for the report: escaping, the page shell, the style sheet and the table script.

Every value from a run (observations, actions, task ids, errors) is untrusted: it reaches the page
only through :func:`esc` (``html.escape`` with quotes), never as markup. As a second line of defence
the page's Content-Security-Policy lets only the report's own script run (by its SHA-256), loads
nothing from the network and images only from the report's own origin or data URLs.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
from typing import Any, Iterable

STYLE = """
:root { --ok: #1a7f37; --bad: #cf222e; --warn: #9a6700; --muted: #57606a; --line: #d0d7de; --soft: #f6f8fa; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0 auto; padding: 16px 24px 48px;
       max-width: 1500px; color: #1f2328; background: #fff; }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); }
h3 { font-size: 15px; margin: 16px 0 6px; }
a { color: #0969da; } .muted { color: var(--muted); }
pre { white-space: pre-wrap; overflow-wrap: anywhere; background: var(--soft); border: 1px solid var(--line);
      border-radius: 6px; padding: 8px 10px; margin: 4px 0; max-height: 32em; overflow: auto; font-size: 12.5px; }
table { border-collapse: collapse; margin: 6px 0 12px; }
th, td { border: 1px solid var(--line); padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: var(--soft); } td.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; user-select: none; }
table.sortable th[aria-sort=ascending]::after { content: " \\25B2"; } table.sortable th[aria-sort=descending]::after { content: " \\25BC"; }
.cards { display: flex; flex-wrap: wrap; gap: 10px; margin: 8px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; min-width: 120px; background: var(--soft); }
.card .value { font-size: 20px; font-weight: 600; } .card .label { color: var(--muted); font-size: 12px; }
.badge { display: inline-block; padding: 0 7px; border-radius: 10px; font-size: 12px; font-weight: 600; color: #fff; }
.badge.pass { background: var(--ok); } .badge.fail { background: var(--bad); } .badge.error { background: #8250df; }
.badge.infra { background: var(--warn); } .badge.incomplete { background: var(--muted); }
.warnings { border: 1px solid #d4a72c; background: #fff8c5; border-radius: 6px; padding: 6px 12px; margin: 8px 0; }
.bar { display: inline-block; height: 10px; background: #4c72b0; vertical-align: middle; margin-right: 6px; }
.filters { margin: 8px 0; display: flex; gap: 10px; align-items: center; }
.filters input { width: 320px; padding: 4px 6px; }
.step { border: 1px solid var(--line); border-radius: 8px; margin: 12px 0; padding: 8px 12px; }
.step > header { display: flex; gap: 14px; align-items: baseline; flex-wrap: wrap; margin-bottom: 6px; }
.step > header .title { font-weight: 600; font-size: 15px; }
.step .body { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1.2fr); gap: 12px; }
.step .label { color: var(--muted); font-size: 12px; text-transform: uppercase; letter-spacing: .04em; }
.cut { color: var(--warn); font-size: 12px; font-weight: 600; }
.shot { position: relative; display: inline-block; max-width: 100%; line-height: 0; margin: 4px 0; outline: 1px solid var(--line); }
.shot img { max-width: 100%; max-height: 600px; width: auto; height: auto; display: block; }
.shot svg { position: absolute; left: 0; top: 0; width: 100%; height: 100%; pointer-events: none; }
figure { margin: 4px 0 10px; } figcaption { color: var(--muted); font-size: 12px; }
.noimage { display: inline-block; border: 1px dashed var(--bad); color: var(--bad); padding: 10px 14px; margin: 4px 0; }
.error-text { color: var(--bad); }
tr.pass td:first-child, tr.matched td:first-child, tr.effective td:first-child { border-left: 4px solid var(--ok); }
tr.fail td:first-child, tr.unmatched td:first-child { border-left: 4px solid var(--bad); }
tr.partial td:first-child { border-left: 4px solid var(--warn); }
tr.effective { background: #dafbe1; } tr.matched { background: #f0fff4; } tr.unmatched { background: #fff0f0; }
.pair { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 16px; }
.pair .step .body { grid-template-columns: minmax(0, 1fr); }
.delta-up { color: var(--ok); font-weight: 600; } .delta-down { color: var(--bad); font-weight: 600; }
nav.top { display: flex; gap: 14px; font-size: 13px; }
"""

#: Sorting (click a header; numbers by ``data-sort``) and filtering (text and status) of the report's tables.
SCRIPT = """
(function () {
  "use strict";
  function sortKey(cell) {
    var raw = cell.getAttribute("data-sort");
    if (raw === null) { raw = cell.textContent.trim(); }
    var number = Number(raw);
    return (raw !== "" && isFinite(number)) ? {n: number} : {s: raw.toLowerCase()};
  }
  function compare(a, b) {
    if (a.n !== undefined && b.n !== undefined) { return a.n - b.n; }
    if (a.n !== undefined) { return -1; }
    if (b.n !== undefined) { return 1; }
    return a.s < b.s ? -1 : (a.s > b.s ? 1 : 0);
  }
  document.querySelectorAll("table.sortable").forEach(function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (head, column) {
      head.addEventListener("click", function () {
        var ascending = head.getAttribute("aria-sort") !== "ascending";
        Array.prototype.forEach.call(heads, function (other) { other.removeAttribute("aria-sort"); });
        head.setAttribute("aria-sort", ascending ? "ascending" : "descending");
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows).map(function (row, index) { return [row, index]; });
        rows.sort(function (x, y) {
          var order = compare(sortKey(x[0].cells[column]), sortKey(y[0].cells[column]));
          return (ascending ? order : -order) || (x[1] - y[1]);
        });
        rows.forEach(function (pair) { body.appendChild(pair[0]); });
      });
    });
  });
  document.querySelectorAll("[data-filter]").forEach(function (box) {
    var table = document.getElementById(box.getAttribute("data-filter"));
    var text = box.querySelector("input"), status = box.querySelector("select"), count = box.querySelector(".count");
    function apply() {
      var query = text.value.trim().toLowerCase(), wanted = status ? status.value : "";
      var rows = table.tBodies[0].rows, shown = 0;
      for (var i = 0; i < rows.length; i++) {
        var row = rows[i];
        var tags = " " + (row.getAttribute("data-status") || "") + " ";
        var keep = (!query || row.textContent.toLowerCase().indexOf(query) >= 0) && (!wanted || tags.indexOf(" " + wanted + " ") >= 0);
        row.hidden = !keep;
        if (keep) { shown++; }
      }
      count.textContent = shown + " of " + rows.length + " shown";
    }
    text.addEventListener("input", apply);
    if (status) { status.addEventListener("change", apply); }
    apply();
  });
})();
"""

_SCRIPT_HASH = base64.b64encode(hashlib.sha256(SCRIPT.encode("utf-8")).digest()).decode("ascii")
CSP = (f"default-src 'none'; img-src 'self' data:; style-src 'unsafe-inline'; script-src 'sha256-{_SCRIPT_HASH}'; "
       "base-uri 'none'; form-action 'none'")


def esc(value: Any) -> str:
    """``value`` as text safe anywhere in HTML (element content or a quoted attribute)."""
    return html.escape("" if value is None else str(value), quote=True)


def page(title: str, body: str) -> str:
    """A complete HTML document: ``body`` is markup built from escaped values."""
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<meta http-equiv=\"Content-Security-Policy\" content=\"{esc(CSP)}\">"
            "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
            f"<title>{esc(title)}</title><style>{STYLE}</style></head>\n<body>\n{body}\n"
            f"<script>{SCRIPT}</script>\n</body></html>\n")


def fmt(value: Any, digits: int = 3) -> str:
    """A number for a cell (floats to ``digits`` places; None as a dash)."""
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def as_text(value: Any) -> str:
    """A recorded value as readable text: strings as they are, anything else as indented JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, indent=2, ensure_ascii=False)
    except (TypeError, ValueError):
        return repr(value)


def cell(value: Any, *, sort: Any = None, numeric: bool = False, markup: str | None = None) -> str:
    """One ``<td>``: escaped ``value`` (or trusted ``markup``), with an optional sort key."""
    attributes = f' data-sort="{esc(sort)}"' if sort is not None else ""
    attributes += ' class="num"' if numeric else ""
    return f"<td{attributes}>{markup if markup is not None else esc(value)}</td>"


def table(headers: Iterable[str], rows: Iterable[str], *, table_id: str | None = None, sortable: bool = False,
          caption: str | None = None) -> str:
    """A table from header names (escaped) and ready ``<tr>`` rows."""
    attributes = f' id="{esc(table_id)}"' if table_id else ""
    attributes += ' class="sortable"' if sortable else ""
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    title = f"<caption>{esc(caption)}</caption>" if caption else ""
    return f"<table{attributes}>{title}<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>"


def filters(table_id: str, statuses: Iterable[tuple[str, str]]) -> str:
    """The filter box of a table: a text field and a status menu (values match rows' ``data-status`` words)."""
    options = '<option value="">all</option>' + "".join(f'<option value="{esc(v)}">{esc(label)}</option>' for v, label in statuses)
    return (f'<div class="filters" data-filter="{esc(table_id)}"><input type="search" placeholder="filter rows (any text)" '
            f'aria-label="filter"><select aria-label="status">{options}</select><span class="count muted"></span></div>')


def badge(status: str) -> str:
    return f'<span class="badge {esc(status)}">{esc(status)}</span>'


def key_values(pairs: Iterable[tuple[str, Any]]) -> str:
    """A two-column table of labels and values (values escaped, shown as text or JSON)."""
    rows = [f"<tr><th>{esc(k)}</th><td>{esc(v if isinstance(v, str) else fmt(v) if isinstance(v, (int, float, type(None))) else as_text(v))}</td></tr>"
            for k, v in pairs]
    return f"<table>{''.join(rows)}</table>" if rows else ""
