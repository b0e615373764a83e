"""Answer matching and the paper's tool-chain metrics (VTC-Bench §3.3 and App. C.2).

Correctness: a choice answer matches by letter ("C", "C.", "(C)", "C) text", "Option C") or by the
option's text; an open answer matches after normalisation (case, whitespace, punctuation, number
formats, trailing units), or by containment when the gold answer is shorter than five words.

Chain metrics per episode: L_T (all attempted tool calls), L_e (effective calls: those whose output
lies on the image lineage from the input to the image the answer relied on), L_G (reference chain
length). Over a set of episodes: APR (share correct), TCR (share with L_T > 0), MAE of L_G − L_T and of
L_G − L_e, and Eff_tool = Σ L_e / Σ L_T.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

from mmenvs.core import ImageStore

from .problems import LETTERS, TABLE_ORDER

_WORD_NUMBERS = {w: str(i) for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split())}
_UNITS = r"(?:cm²|cm2|cm\^2|square centimeters|square cm|sq cm|cm|mm|px|pixels?|units?|degrees?|deg|°|%|percent)"
_TRAILING_UNIT = re.compile(rf"(\d)\s*{_UNITS}(?=\s|$|[.,;!?])", re.IGNORECASE)


def _number_text(match: re.Match[str]) -> str:
    text = match.group().replace(",", "")
    if "." in text:
        text = text.rstrip("0").rstrip(".")
    return text or "0"


def normalise_open(text: str) -> str:
    """Lower-case, unify quotes, drop trailing units, canonical numbers ("1,000.50" → "1000.5",
    "seven" → "7"), strip punctuation, collapse whitespace."""
    from .problems import normalise_quotes

    text = normalise_quotes(str(text)).lower().strip()
    text = _TRAILING_UNIT.sub(r"\1", text)
    text = re.sub(r"\d[\d,]*(?:\.\d+)?", _number_text, text)
    text = re.sub(r"[^\w\s.\-]", " ", text)
    words = [w.strip(".-") for w in text.split()]
    words = [_WORD_NUMBERS.get(w, w) for w in words if w]
    return " ".join(words)


def match_open(response: str, gold: str) -> bool:
    """Open answer check: equal after ``normalise_open``, or (gold under five words) the gold's words
    appear as a whole-word run in the response."""
    said, want = normalise_open(response), normalise_open(gold)
    if not want:
        return False
    if said == want:
        return True
    if len(want.split()) < 5:
        return re.search(rf"(?<![\w.]){re.escape(want)}(?![\w]|\.\d)", said) is not None
    return False


_LETTER_FORMS = [
    re.compile(r"^\(?([A-H])\)?\s*$"),
    re.compile(r"^\(?([A-H])[.):\]\-]"),
    re.compile(r"^(?:option|choice|answer)\s*[:\-]?\s*\(?([A-H])\)?(?:$|[\s.):])", re.IGNORECASE),
]


def chosen_letter(response: str, choices: Sequence[str]) -> str | None:
    """The option letter a response selects, or ``None`` when it selects none."""
    from .problems import normalise_quotes

    text = normalise_quotes(str(response)).strip().strip("*`\"' ")
    texts = [normalise_open(c) for c in choices]
    said = normalise_open(text)
    if said in texts:  # the option's text itself (checked first: "A square" may be an option)
        return LETTERS[texts.index(said)]
    for pattern in _LETTER_FORMS:
        match = pattern.match(text)
        if match and match.group(1).upper() in LETTERS[: len(choices)]:
            return match.group(1).upper()
    match = re.match(r"^([A-H])\s+(.*)$", text)  # "C 12 cm": a letter then text
    if match and match.group(1) in LETTERS[: len(choices)]:
        rest = normalise_open(match.group(2))
        if not rest or rest == texts[LETTERS.index(match.group(1))] or rest not in texts:
            return match.group(1)
    return None


def is_correct(response: str | None, answer: str, choices: Sequence[str] | None) -> bool:
    """Whether ``response`` answers correctly (``answer`` is a letter when there are choices)."""
    if response is None:
        return False
    if choices:
        return chosen_letter(response, choices) == answer
    return match_open(response, answer)


# ---------------------------------------------------------------------------------------- chains
def effective_calls(store: ImageStore, calls: Sequence[Mapping[str, Any]], relied_on: Iterable[str]) -> list[int]:
    """Indices of the successful calls whose output lies on the lineage of the images the answer relied
    on (walking parents back to the input): the effective tool chain, in call order."""
    lineage: set[str] = set()
    for image_id in relied_on:
        if image_id in store:
            lineage.update(store.lineage(image_id))
    return [i for i, call in enumerate(calls) if call.get("ok") and call.get("output") in lineage]


def chain_metrics(calls: Sequence[Mapping[str, Any]], effective: Sequence[int], reference_length: int) -> dict[str, Any]:
    """One episode's chain numbers: L_T, L_e, L_G, their absolute errors and the tools used."""
    used = [c["tool"] for c in calls]
    effective_tools = [calls[i]["tool"] for i in effective]
    return {
        "calls": len(calls), "effective_calls": len(effective), "reference_length": int(reference_length),
        "abs_error_all": abs(int(reference_length) - len(calls)), "abs_error_effective": abs(int(reference_length) - len(effective)),
        "unique_tools": len(set(used)), "unique_effective_tools": len(set(effective_tools)),
        "tools": used, "effective_tools": effective_tools,
    }


def aggregate(episodes: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The paper's Table 5 numbers over episodes. Each episode is a dict with ``correct`` (bool) and
    ``chain_metrics`` (as in the env's final ``info``); ``category`` optional."""
    n = len(episodes)
    if n == 0:
        return {"episodes": 0}
    metrics = [e["chain_metrics"] for e in episodes]
    total_calls = sum(m["calls"] for m in metrics)
    total_effective = sum(m["effective_calls"] for m in metrics)
    return {
        "episodes": n,
        "APR": 100.0 * sum(bool(e["correct"]) for e in episodes) / n,
        "TCR": 100.0 * sum(m["calls"] > 0 for m in metrics) / n,
        "avg_calls": total_calls / n, "avg_unique_tools": sum(m["unique_tools"] for m in metrics) / n,
        "MAE_all": sum(m["abs_error_all"] for m in metrics) / n,
        "avg_effective_calls": total_effective / n, "avg_unique_effective_tools": sum(m["unique_effective_tools"] for m in metrics) / n,
        "MAE_effective": sum(m["abs_error_effective"] for m in metrics) / n,
        "Eff_tool": 100.0 * total_effective / total_calls if total_calls else 0.0,
    }


def per_category(episodes: Sequence[Mapping[str, Any]]) -> dict[str, float]:
    """APR (%) per category (the paper's Table 4 columns) plus "overall"."""
    out: dict[str, float] = {}
    for key, _ in TABLE_ORDER:
        group = [e for e in episodes if e.get("category") == key]
        if group:
            out[key] = 100.0 * sum(bool(e["correct"]) for e in group) / len(group)
    if episodes:
        out["overall"] = 100.0 * sum(bool(e["correct"]) for e in episodes) / len(episodes)
    return out


def format_tables(episodes: Sequence[Mapping[str, Any]], label: str = "agent") -> str:
    """Both paper tables as Markdown: Table 4 (APR overall and per category) and Table 5 (TCR, APR,
    all/effective calls with unique tools and MAE, Eff_tool)."""
    cats = per_category(episodes)
    head4 = ["Agent", "Overall"] + [short for _, short in TABLE_ORDER]
    row4 = [label, f"{cats.get('overall', 0.0):.2f}"] + [f"{cats[k]:.2f}" if k in cats else "–" for k, _ in TABLE_ORDER]
    s = aggregate(episodes)
    head5 = ["Agent", "TCR (%)", "APR (%)", "All Avg.T.", "All Uniq.T.", "All MAE", "Eff. Avg.T.", "Eff. Uniq.T.", "Eff. MAE", "Eff. (%)"]
    row5 = [label] + [f"{s.get(k, 0.0):.2f}" for k in ("TCR", "APR", "avg_calls", "avg_unique_tools", "MAE_all", "avg_effective_calls",
                                                        "avg_unique_effective_tools", "MAE_effective", "Eff_tool")]

    def table(head: list[str], row: list[str]) -> str:
        return "\n".join(["| " + " | ".join(head) + " |", "|" + "---|" * len(head), "| " + " | ".join(row) + " |"])

    return f"Table 4 (APR %, by category)\n{table(head4, row4)}\n\nTable 5 (tool use)\n{table(head5, row5)}\n"


def tool_usage(episodes: Sequence[Mapping[str, Any]]) -> Counter[str]:
    """How often each tool was called over the episodes (the paper's Fig. 6)."""
    counts: Counter[str] = Counter()
    for e in episodes:
        counts.update(e["chain_metrics"]["tools"])
    return counts


def plot_tool_usage(episodes: Sequence[Mapping[str, Any]], path: str | Path, title: str = "Tool usage") -> Path:
    """Save a bar chart of the tool-usage distribution (share of all calls per tool) as PNG."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    counts = tool_usage(episodes).most_common()
    total = sum(c for _, c in counts) or 1
    fig, ax = plt.subplots(figsize=(max(6, 0.35 * len(counts) + 2), 4))
    ax.bar([n for n, _ in counts], [100 * c / total for _, c in counts], color="#4477aa")
    ax.set_ylabel("share of calls (%)")
    ax.set_title(title)
    ax.tick_params(axis="x", rotation=70, labelsize=8)
    fig.tight_layout()
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path
