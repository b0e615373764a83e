"""Convert pinned suite scenarios into UI-mode scenarios (the paper's 50-scenario UI variant, §4.2).

A generated scenario whose flow has a decision point — which item(s) to act on — becomes a UI
scenario: the criterion leaves the user's query and becomes the private ``ui`` block of the action
round (docs/toolsandbox-ui.md), so the agent has to show the candidates on a screen and act on the
user's click. ``to_ui_scenario`` is deterministic and works on the scenario dict alone: every
candidate is an item image whose facts (renderer specs) are stored in the scenario.

Decision flows and the private criterion they become:

* ``compare``         — cheapest / most expensive → ``min``/``max`` of ``price``; earliest / latest →
  ``min``/``max`` of ``starts`` (a sortable date-time number); best-rated → ``max`` of ``rating``;
* ``filter``          — "costs at most $X" → ``where {fits_budget: true}``, ``pick: all``; "everyone
  whose card says C" → ``where {company: C}``, ``pick: all``;
* ``lookup_chain``    — the item a friend picked in the chat → ``prefer [that item]``;
* ``cross_reference`` — the items on the handwritten list → ``where {on_list: true}``, ``pick: all``.

``aggregate`` and ``compute`` act on every image (no choice of item) and ``validate`` decides by the
app's state (a clash, an existing entry), not by the user's taste: they raise ``ValueError``.

What changes: the action round's query names "the <item> I choose" and asks for a screen; phrases of
the challenge that would name the chosen item (a stale entry "for <label>", a wrong detail about
"<label>") refer to it without its name; a goal change that would restate the private criterion
("not <company>", "the ones over $X") refers to "the ones I chose". The expected changes stay as
they are (the paper keeps the entity-diff specs). The reference solution becomes: the original
lookups that do not depend on the choice, ``render_ui_screen`` with one card (pick one) or one item
of a multiple-selection list (pick all) per candidate, ``show_ui_to_user`` with the ``expect`` the
chosen element implies, then the original steps. Each conversion is checked against the scripted
user (``ui.decide.react``) here and by the oracle in UI mode in the tests.

The UI suite is stored like the other pinned suites (:mod:`mmenvs.toolsandbox.suites`):
``registry/toolsandbox/ui_suite/benchmark.jsonl`` indexes it (id, source id and fingerprint, axes,
criterion, pick, fingerprint) and ``benchmark.jsonl.gz`` holds the 50 converted scenarios. The env
reads the stored file and never runs the converter, so an edit of this module cannot change the
pinned UI benchmark; ``tests/test_toolsandbox_ui_suite.py`` converts the sources afresh and fails when
the result differs from the stored file (then rebuild with
``python -m mmenvs.toolsandbox.generator.ui_convert``, i.e. :func:`build_ui_suite`).
"""

from __future__ import annotations

import copy
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..suites import UI_SUITE, fingerprint, load_suite
from ..ui.decide import interaction_mismatches, parse_decisions, react
from ..ui.schema import validate_screen
from .items import money, nice_date

#: Flows whose decision is "which item(s)": the ones ``to_ui_scenario`` converts.
DECISION_FLOWS: tuple[str, ...] = ("compare", "filter", "lookup_chain", "cross_reference")
#: Flows without such a decision, and why (the ValueError says it).
NO_DECISION: dict[str, str] = {
    "aggregate": "it acts on every image (a total, all products), so there is no item to choose",
    "compute": "it derives a value from every image (a share, a shifted time), so there is no item to choose",
    "validate": "which items pass is decided by the app's state (a clash, an existing entry), not by the user",
}
UI_SUITE_SIZE = 50
_ITEM_KINDS = ("event_poster", "ticket", "receipt", "invoice", "product_card", "business_card")
_READ = re.compile(r"_(search|list|get|find)_")
_PLURAL = {"event": "events", "bill": "bills", "invoice": "invoices", "product": "products", "person": "people"}
_COMPARE = {"cheapest": ("min", "price"), "most expensive": ("max", "price"), "earliest": ("min", "starts"),
            "latest": ("max", "starts"), "best-rated": ("max", "rating")}


@dataclass(frozen=True)
class Candidate:
    """An item image the user may choose: its key, kind, display name and the facts a screen shows."""

    key: str
    kind: str
    label: str
    price: float | None = None
    date: str | None = None
    time: str | None = None
    end_time: str | None = None
    place: str | None = None
    rating: float | None = None
    pointer: str = ""
    person: dict[str, Any] = field(default_factory=dict)

    @property
    def option(self) -> str:
        return f"opt_{self.key}"


def candidates(scenario: dict[str, Any]) -> list[Candidate]:
    """The item images of a generated scenario (store order), read from their renderer facts."""
    out = []
    for key, spec in scenario.get("images", {}).items():
        if not isinstance(spec, dict) or spec.get("kind") not in _ITEM_KINDS:
            continue
        f, kind = spec.get("facts", {}), spec["kind"]
        if kind == "event_poster":
            out.append(Candidate(key, kind, f["title"], float(f["price"]), f["date"], f["start_time"], f.get("end_time"), f["venue"], pointer=f["venue"]))
        elif kind == "ticket":
            out.append(Candidate(key, kind, f["event"], float(f["price"]), f["date"], f["time"], None, f["venue"], pointer=f["venue"]))
        elif kind == "receipt":
            out.append(Candidate(key, kind, f["merchant"], float(f["total"]), f["date"], f.get("time"), None, f.get("address"), pointer=f["receipt_number"]))
        elif kind == "invoice":
            out.append(Candidate(key, kind, f["seller"]["name"], float(f["total"]), f["due_date"], pointer=f["invoice_number"]))
        elif kind == "product_card":
            out.append(Candidate(key, kind, f["name"], float(f["price"]), rating=float(f.get("rating", 4.0)), pointer=f.get("brand", f["name"].split()[0])))
        else:
            person = {k: f.get(k) for k in ("name", "company", "job_title", "phone", "email")}
            out.append(Candidate(key, kind, f["name"], pointer=f["company"], person=person))
    return out


# ---------------------------------------------------------------------------------------------- decisions
@dataclass
class _Decision:
    kind: str          # min | max | where | prefer
    arg: Any
    pick: str          # one | all
    facts: dict[str, dict[str, Any]]
    phrase: str        # the criterion as the query stated it (removed from it)
    neutral: str       # what replaces it
    word: str = "item"  # what the candidates are, singular ("event", "person")


def _singular(plural: str) -> str:
    return next((one for one, many in _PLURAL.items() if many == plural), plural)


def _starts(c: Candidate) -> int:
    return int(re.sub(r"\D", "", f"{c.date}{c.time or '00:00'}"))


def _decision(flow: str, query: str, items: list[Candidate], scenario: dict[str, Any]) -> _Decision | None:
    if flow == "compare":
        m = re.search(r"the (cheapest|most expensive|earliest|latest|best-rated) (event|bill|invoice|product) of these", query)
        if not m:
            return None
        kind, fact = _COMPARE[m.group(1)]
        facts = {c.option: {"price": c.price} if fact == "price" else {"starts": _starts(c)} if fact == "starts" else {"rating": c.rating}
                 for c in items}
        return _Decision(kind, fact, "one", facts, m.group(0), f"the {m.group(2)} I choose", m.group(2))
    if flow == "filter":
        m = re.search(r"each of these (\w+) that costs at most (\$[\d,]+\.\d\d)", query)
        if m:
            budget = float(m.group(2)[1:].replace(",", ""))
            facts = {c.option: {"price": c.price, "fits_budget": (c.price or 0) <= budget} for c in items}
            return _Decision("where", {"fits_budget": True}, "all", facts, m.group(0), f"the {m.group(1)} I choose", _singular(m.group(1)))
        for c in items:
            phrase = f"everyone whose card says {c.pointer}"
            if c.kind == "business_card" and phrase in query:
                facts = {o.option: {"company": o.pointer} for o in items}
                return _Decision("where", {"company": c.pointer}, "all", facts, phrase, "the people I choose", "person")
        return None
    if flow == "lookup_chain":
        m = re.search(r"the (event|bill|invoice|product|person) (.+?) picked in our chat", query)
        chat = next((s["facts"] for s in scenario["images"].values() if isinstance(s, dict) and s.get("kind") == "chat_screenshot"), None)
        if not m or chat is None:
            return None
        said = " ".join(msg["text"] for msg in chat["messages"] if msg["sender"] != "me")
        target = [c for c in items if c.pointer and c.pointer in said]
        if len(target) != 1:
            return None
        facts = {c.option: {} for c in items}
        return _Decision("prefer", [target[0].option], "one", facts, m.group(0), f"the {m.group(1)} I choose", m.group(1))
    if flow == "cross_reference":
        m = re.search(r"each of these (\w+) that is also on my handwritten list", query)
        note = next((s["facts"] for s in scenario["images"].values() if isinstance(s, dict) and s.get("kind") == "handwritten_note"), None)
        if not m or note is None:
            return None
        entries = {str(e.get("name") or e.get("task") or "").casefold() for e in note["items"]}
        facts = {c.option: {"on_list": c.label.casefold() in entries} for c in items}
        return _Decision("where", {"on_list": True}, "all", facts, m.group(0), f"the {m.group(1)} I choose", _singular(m.group(1)))
    return None


def _changed_decision(flow: str, first: _Decision, pivot: str, items: list[Candidate]) -> _Decision | None:
    """The decision behind a goal change (the generator's pivot texts), as a private criterion."""
    if flow == "compare":
        m = re.search(r"go with the (cheapest|most expensive|earliest|latest|best-rated) (\w+) instead", pivot)
        if not m:
            return None
        kind, fact = _COMPARE[m.group(1)]
        facts = {c.option: {"price": c.price} if fact == "price" else {"starts": _starts(c)} if fact == "starts" else {"rating": c.rating}
                 for c in items}
        return _Decision(kind, fact, "one", facts, m.group(0), "", first.word)
    if flow == "filter":
        if "fits_budget" in first.arg:
            return _Decision("where", {"fits_budget": False}, "all", first.facts, "the ones over", "", first.word)
        m = re.search(r"I meant the people from (.+?), not ", pivot)
        if not m:
            return None
        return _Decision("where", {"company": m.group(1)}, "all", first.facts, m.group(0), "", first.word)
    if flow == "lookup_chain":
        m = re.search(r"it's (.+?)\. Please fix", pivot)
        target = [c for c in items if m and c.pointer and c.pointer in m.group(1)]
        if len(target) != 1:
            return None
        return _Decision("prefer", [target[0].option], "one", {c.option: {} for c in items}, m.group(0), "", first.word)
    if flow == "cross_reference":
        listed = {c.option for c in items if first.facts[c.option]["on_list"]}
        crossed = re.search(r"I crossed (.+?) off my list", pivot)
        added = re.search(r"add (.+?) too, even though", pivot)
        if crossed:
            wanted = listed - {c.option for c in items if c.label == crossed.group(1)}
        elif added:
            wanted = listed | {c.option for c in items if c.label == added.group(1)}
        else:
            return None
        facts = {c.option: {"wanted": c.option in wanted} for c in items}
        return _Decision("where", {"wanted": True}, "all", facts, (crossed or added).group(0), "", first.word)
    return None


def _chosen(decision: _Decision, items: list[Candidate]) -> list[Candidate]:
    """What the private criterion selects among all candidates (the scripted user's rule, on every option)."""
    if decision.kind in ("min", "max"):
        values = [decision.facts[c.option][decision.arg] for c in items]
        best = (min if decision.kind == "min" else max)(values)
        return [items[values.index(best)]]
    if decision.kind == "prefer":
        return [c for c in items if c.option in decision.arg][:1]
    return [c for c in items if all(decision.facts[c.option].get(k) == v for k, v in decision.arg.items())]


# ---------------------------------------------------------------------------------------------- texts
def _pronoun(pick: str) -> str:
    return "it" if pick == "one" else "one of them"


def _rewrite_query(query: str, decision: _Decision, chosen: list[Candidate], items: list[Candidate]) -> str:
    """The action round's query without the criterion, and without naming the chosen item in the challenge's phrases."""
    text = query.replace(decision.phrase, decision.neutral, 1)
    one = decision.pick == "one"
    for c in sorted(chosen, key=lambda c: -len(c.label)):
        label = c.label
        for before, after in ((f"(I think {label} is at ", "(I think it is at " if one else "(I think one of them is at "),
                              (f"(I think {label} came to ", "(I think it came to " if one else "(I think one of them came to "),
                              (f"an outdated entry for {label} in there", "an outdated entry for " + ("the one I choose" if one else "one of them") + " in there"),
                              (f"a request for {label} with the wrong amount", "a request for " + ("it" if one else "one of them") + " with the wrong amount"),
                              (f"('Details to follow: {label}')", "('Details to follow: …')")):
            text = text.replace(before, after)
        lookalike = f"(It's the {label} "
        if lookalike in text:  # the user's wrong detail names the look-alike listing: keep only what differs
            head, _, tail = text.partition(lookalike)
            version, _, rest = tail.partition(", I believe.)")
            text = head + (f"(It's the {version} version, I believe.)" if one else f"(One of them is the {version} version, I believe.)") + rest
    return text + " Show me the options on a screen and I'll choose."


# ---------------------------------------------------------------------------------------------- screen
def _card_text(c: Candidate) -> tuple[str, list[str], str | None]:
    """(subtitle, lines, badge) of a candidate: what the user needs to choose."""
    badge = money(c.price) if c.price is not None else None
    if c.kind in ("event_poster", "ticket"):
        when = f"{nice_date(c.date)} at {c.time}" if c.date else ""
        return when, [f"Venue: {c.place}"] if c.place else [], badge
    if c.kind == "receipt":
        return f"Receipt from {nice_date(c.date)}" if c.date else "Receipt", [], badge
    if c.kind == "invoice":
        return f"Invoice due {nice_date(c.date)}" if c.date else "Invoice", [], badge
    if c.kind == "product_card":
        return f"Rated {c.rating:.1f} of 5", [], badge
    subtitle = c.person.get("job_title") or ""
    return subtitle, [f"Company: {c.person['company']}"] if c.person.get("company") else [], None


def _screen(decision: _Decision, items: list[Candidate]) -> dict[str, Any]:
    """One card with a Choose button per candidate (pick one), or a multiple-selection list and a Confirm button (pick all)."""
    word = decision.word
    plural = _PLURAL.get(word, word + "s")
    if decision.pick == "one":
        cards = []
        for c in items:
            subtitle, lines, badge = _card_text(c)
            card: dict[str, Any] = {"type": "card", "id": f"card_{c.key}", "title": c.label, "image": f"{{image:{c.key}}}"}
            if subtitle:
                card["subtitle"] = subtitle
            if lines:
                card["lines"] = lines
            if badge:
                card["badge"] = badge
            card["buttons"] = [{"type": "button", "id": f"choose_{c.key}", "label": "Choose"}]
            cards.append(card)
        screen = {"title": f"Which {word}?", "children": [{"type": "text", "text": f"Tap Choose on the {word} you want.", "style": "caption"}, *cards]}
        return screen
    list_items = []
    for c in items:
        subtitle, lines, badge = _card_text(c)
        item: dict[str, Any] = {"id": f"item_{c.key}", "title": c.label, "image": f"{{image:{c.key}}}"}
        detail = "; ".join(x for x in (subtitle, *lines) if x)
        if detail:
            item["subtitle"] = detail
        if badge:
            item["badge"] = badge
        list_items.append(item)
    screen = {"title": f"Pick the {plural}", "children": [
        {"type": "list", "id": "options", "selection": "multiple", "label": f"Select every {word} you want", "items": list_items},
        {"type": "button", "id": "confirm", "label": "Confirm"}]}
    return screen


def _expect(decision: _Decision, chosen: list[Candidate]) -> dict[str, Any]:
    if decision.pick == "one":
        return {"element_id": f"choose_{chosen[0].key}"}
    return {"element_id": "confirm", "selected": {"options": [f"item_{c.key}" for c in chosen]}}


def _check_with_user(ui_block: dict[str, Any], screen: dict[str, Any], scenario: dict[str, Any], expect: dict[str, Any]) -> bool:
    """Does the scripted user, shown ``screen``, do exactly what ``expect`` says?"""
    keys = list(scenario["images"])
    concrete = json.loads(re.sub(r"\{image:([A-Za-z0-9_\-]+)\}", lambda m: f"img_{keys.index(m.group(1))}", json.dumps(screen)))
    reaction = react(parse_decisions(ui_block, "ui"), validate_screen(concrete), "screen_1")
    return reaction.arguments is not None and not interaction_mismatches([expect], [reaction.arguments])


# ---------------------------------------------------------------------------------------------- the converter
def _last_round_start(solution: list[dict[str, Any]], rounds: int) -> int:
    """Index of the first step of the last round: rounds before it close with exactly one ``say`` each."""
    says = 0
    for i, step in enumerate(solution):
        if says == rounds - 1:
            return i
        if "say" in step:
            says += 1
    raise ValueError(f"the reference solution closes {says} rounds, expected at least {rounds - 1} before the last one")


def _strings(value: Any) -> str:
    """Every string inside ``value``, one per line (labels may hold quotes, which JSON would escape)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(_strings(v) for v in value.values())
    if isinstance(value, list):
        return "\n".join(_strings(v) for v in value)
    return ""


def _mentions(value: Any, labels: list[str]) -> bool:
    text = _strings(value)
    return any(label in text for label in labels)


def _source_decision(scenario: dict[str, Any], items: list[Candidate]) -> _Decision | None:
    flow, last = scenario["metadata"]["flow_type"], scenario["rounds"][-1]
    decision = _decision(flow, last["query"], items, scenario)
    if decision is not None and scenario["metadata"].get("challenge_type") == "goal_change" and "goal_change" in last:
        # the stated request stays public; the changed goal becomes the private choice
        decision = _changed_decision(flow, decision, last["goal_change"]["text"], items)
    return decision


def private_criterion(scenario: dict[str, Any]) -> dict[str, Any] | None:
    """What ``to_ui_scenario`` makes private for a source scenario (None when it finds no decision):
    ``choose`` and ``pick`` of the ``ui`` block, ``phrase`` (the criterion as the source's user stated it),
    ``secrets`` (strings of the source's wording that the agent must never see in the UI variant) and
    ``chosen`` (the labels the criterion selects)."""
    items = candidates(scenario)
    decision = _source_decision(scenario, items)
    if decision is None:
        return None
    secrets = [decision.phrase]
    m = re.search(r"(cheapest|most expensive|earliest|latest|best-rated)", decision.phrase)
    if m:
        secrets.append(m.group(1))
    budget = re.search(r"at most (\$[\d,]+\.\d\d)", decision.phrase)
    if budget:
        secrets.append(budget.group(1))
    return {"choose": {decision.kind: decision.arg}, "pick": decision.pick, "phrase": decision.phrase, "secrets": secrets,
            "chosen": [c.label for c in _chosen(decision, items)]}


def to_ui_scenario(scenario: dict[str, Any]) -> dict[str, Any] | None:
    """The UI-mode variant of a generated scenario, or None when its decision cannot be put on a screen.

    Raises ``ValueError`` for a scenario whose flow has no decision point (aggregate, compute,
    validate) or that is not a generated scenario. Returns None when the flow has a decision but this
    scenario's cannot be converted faithfully (its query does not state the criterion in the
    generator's words, the criterion's choice disagrees with the stored solution, the scripted user
    would not pick the expected element, or the rewritten query still names the choice).
    Same input, same output.
    """
    if not isinstance(scenario, dict) or not isinstance(scenario.get("metadata"), dict):
        raise ValueError(f"to_ui_scenario: expected a generated scenario dict with 'metadata', got {type(scenario).__name__}")
    meta = scenario["metadata"]
    flow = meta.get("flow_type")
    sid = scenario.get("id", "?")
    if flow in NO_DECISION:
        raise ValueError(f"to_ui_scenario: scenario {sid!r} has flow {flow!r}, which has no decision point: {NO_DECISION[flow]}; "
                         f"convertible flows: {', '.join(DECISION_FLOWS)}")
    if flow not in DECISION_FLOWS:
        raise ValueError(f"to_ui_scenario: scenario {sid!r} has unknown flow {flow!r}; convertible flows: {', '.join(DECISION_FLOWS)}")
    if "seed" not in meta or "family" not in meta:
        raise ValueError(f"to_ui_scenario: scenario {sid!r} is not a generated scenario (metadata lacks seed/family)")
    scenario = json.loads(json.dumps(scenario))  # a private copy (the caller's dict stays as it is); faster than deepcopy
    meta = scenario["metadata"]
    items = candidates(scenario)
    rounds = scenario["rounds"]
    last = rounds[-1]
    goal_change = meta.get("challenge_type") == "goal_change" and "goal_change" in last
    decision = _source_decision(scenario, items)
    if decision is None or len(items) < 2:
        return None
    chosen = _chosen(decision, items)
    if not chosen or len(chosen) == len(items):
        return None  # nothing to choose, or everything: not a decision
    # the criterion must select what the stored solution acts on (its writes name the chosen items)
    solution = scenario["reference_solution"]
    start = _last_round_start(solution, len(rounds))
    segment = solution[start:]
    writes = [s for s in segment if "tool" in s and not _READ.search(s["tool"])]
    acted = _acted_labels(_write_names(scenario, writes), items)
    want = {c.label for c in chosen}
    # a goal change writes the first request's items too; otherwise the writes name exactly the chosen ones
    if not (want <= acted if goal_change else want == acted):
        return None
    options = {c.option: {"match": [c.label], "facts": decision.facts[c.option]} for c in items}
    ui_block: dict[str, Any] = {"options": options, "choose": {decision.kind: decision.arg}}
    if decision.pick == "all":
        ui_block["pick"] = "all"
    screen = _screen(decision, items)
    expect = _expect(decision, chosen)
    if not _check_with_user(ui_block, screen, scenario, expect):
        return None
    plural = _PLURAL.get(decision.word, decision.word + "s")
    if goal_change:
        pivot = (f"Actually, I changed my mind about which {decision.word if decision.pick == 'one' else plural} I want. "
                 f"Show me the {plural} on a screen and I'll choose. Please fix what you did.")
        last["goal_change"]["text"] = pivot
        public = pivot
        # the screen comes when the changed goal arrives: after the reply that closes the first request
        cut = next(i for i, s in enumerate(segment) if "say" in s) + 1
    else:
        last["query"] = _rewrite_query(last["query"], decision, chosen, items)
        public = last["query"]
        first_write = next(i for i, s in enumerate(segment) if "tool" in s and not _READ.search(s["tool"]))
        # lookups that do not depend on the choice come first; the screen goes before the first step that does
        cut = next(i for i, s in enumerate(segment[:first_write + 1])
                   if i == first_write or _mentions(s.get("arguments", {}), [c.label for c in items]))
    if any(c.label in public for c in chosen) or decision.phrase in public:
        return None
    last["ui"] = ui_block
    message = f"Which {decision.word} should I use?" if decision.pick == "one" else f"Which {plural} should I include?"
    ui_steps = [{"tool": "render_ui_screen", "arguments": {"screen": screen}},
                {"tool": "show_ui_to_user", "arguments": {"message": message}, "expect": expect}]
    new_solution = solution[:start] + segment[:cut] + ui_steps + segment[cut:]
    ui_meta = {k: v for k, v in meta.items() if k not in ("counterfactuals", "fingerprint")}
    ui_meta.update({"ui_base": sid, "ui_base_fingerprint": meta.get("fingerprint"), "ui_criterion": decision.kind, "ui_pick": decision.pick,
                    "ui_options": len(items), "ui_chosen": len(chosen)})
    out = {
        "id": f"ui-{sid}",
        "description": f"UI variant of {sid}: the user chooses on a screen. " + scenario.get("description", ""),
        "reference_time": scenario["reference_time"],
        "initial_entities": scenario["initial_entities"],
        "images": scenario["images"],
        "rounds": rounds,
        "expected_changes": scenario["expected_changes"],
        "reference_solution": new_solution,
        "metadata": ui_meta,
    }
    for key in ("max_messages", "task_completion_criteria"):
        if key in scenario:
            out[key] = scenario[key]
    out["metadata"]["fingerprint"] = fingerprint(out)
    return out


def _write_names(scenario: dict[str, Any], writes: list[dict[str, Any]]) -> str:
    """The text of the write steps, with product ids resolved to product names (cart steps name products by id)."""
    products = scenario["initial_entities"].get("products", [])
    parts = [_strings(s.get("arguments", {})) for s in writes]
    for s in writes:
        pid = s.get("arguments", {}).get("product_id")
        if isinstance(pid, int) and 1 <= pid <= len(products):
            parts.append(products[pid - 1]["name"])
    return "\n".join(parts)


def _acted_labels(text: str, items: list[Candidate]) -> set[str]:
    """Labels of candidates the writes name (a label inside a longer one, e.g. a look-alike listing, counts once)."""
    found = set()
    for c in items:
        for m in re.finditer(re.escape(c.label), text):
            tail = text[m.end():m.end() + 14]
            if re.match(r" (\(Refurbished\)|Bundle|XL|Kids)", tail):
                continue  # the look-alike listing's name, not this product
            found.add(c.label)
    return found


# ---------------------------------------------------------------------------------------------- careless agent
def careless_solution(ui_scenario: dict[str, Any]) -> list[dict[str, Any]]:
    """A careless agent's steps for a converted scenario: it never shows a screen and guesses.

    It skips ``render_ui_screen``/``show_ui_to_user`` and acts on a candidate the user would not
    choose: in the steps after the skipped screen, every chosen item is swapped for an unchosen one
    (its name, price, date, time, venue, person details and product id).
    """
    items = candidates(ui_scenario)
    block = next(r["ui"] for r in ui_scenario["rounds"] if "ui" in r)
    kind, arg = next(iter(block["choose"].items()))
    facts = {key: spec.get("facts", {}) for key, spec in block["options"].items()}
    decision = _Decision(kind, arg, block.get("pick", "one"), facts, "", "")
    chosen = _chosen(decision, items)
    unchosen = [c for c in items if c not in chosen]
    swap = {c.key: unchosen[i % len(unchosen)] for i, c in enumerate(chosen)}
    pairs: dict[str, str] = {}
    numbers: dict[float, float] = {}
    products = {row["name"]: i + 1 for i, row in enumerate(ui_scenario["initial_entities"].get("products", []))}
    ids: dict[int, int] = {}
    for c in chosen:
        o = swap[c.key]
        for a, b in ((c.label, o.label), (c.place, o.place), (c.date, o.date), (c.time, o.time), (c.end_time, o.end_time)):
            if a and b and a != b:
                pairs[a] = b
        if c.date and o.date:
            pairs[nice_date(c.date)] = nice_date(o.date)
        if c.price is not None and o.price is not None:
            pairs[money(c.price)] = money(o.price)
            numbers[c.price] = o.price
        for k in ("phone", "email", "company", "job_title"):
            if c.person.get(k) and o.person.get(k):
                pairs[c.person[k]] = o.person[k]
        if c.label in products and o.label in products:
            ids[products[c.label]] = products[o.label]
    pattern = re.compile("|".join(re.escape(k) for k in sorted(pairs, key=len, reverse=True))) if pairs else None

    def change(value: Any, key: str = "") -> Any:
        if isinstance(value, str) and pattern is not None:
            return pattern.sub(lambda m: pairs[m.group(0)], value)
        if key == "product_id" and isinstance(value, int):
            return ids.get(value, value)
        if isinstance(value, float):
            return numbers.get(value, value)
        if isinstance(value, list):
            return [change(v) for v in value]
        if isinstance(value, dict):
            return {k: change(v, k) for k, v in value.items()}
        return value

    steps = []
    after_screen = False  # only what follows the (skipped) screen depends on the user's choice
    for step in ui_scenario["reference_solution"]:
        if step.get("tool") in ("render_ui_screen", "show_ui_to_user"):
            after_screen = after_screen or step["tool"] == "show_ui_to_user"
            continue
        if after_screen and "tool" in step and not _READ.search(step["tool"]):
            step = {"tool": step["tool"], "arguments": change(step.get("arguments", {}))}
        steps.append(copy.deepcopy(step))
    return steps


# ---------------------------------------------------------------------------------------------- the pinned UI suite
def select_ui_suite(size: int = UI_SUITE_SIZE) -> list[dict[str, Any]]:
    """Convert the pinned benchmark's decision-flow scenarios and pick ``size`` of them, balanced greedily
    over flow, challenge, arrival and app group (each pick adds to the least-filled values); deterministic."""
    pool = []
    for scenario in load_suite("benchmark"):
        if scenario["metadata"]["flow_type"] not in DECISION_FLOWS:
            continue
        converted = to_ui_scenario(scenario)
        if converted is not None:
            pool.append(converted)
    counts: dict[str, int] = {}
    picked: list[dict[str, Any]] = []
    # the three design axes first, then their pairs (cells), then app group and criterion
    axes = (("flow_type",), ("challenge_type",), ("image_arrival",), ("flow_type", "challenge_type"), ("flow_type", "image_arrival"),
            ("challenge_type", "image_arrival"), ("app_group",), ("ui_criterion",))
    weights = (1000, 1000, 1000, 30, 30, 30, 10, 1)

    def keys(s: dict[str, Any]) -> list[str]:
        return ["|".join(f"{a}:{s['metadata'][a]}" for a in axis) for axis in axes]

    order = {s["id"]: i for i, s in enumerate(pool)}
    while pool and len(picked) < size:
        best = min(pool, key=lambda s: (sum(w * counts.get(k, 0) for k, w in zip(keys(s), weights)), order[s["id"]]))
        pool.remove(best)
        picked.append(best)
        for k in keys(best):
            counts[k] = counts.get(k, 0) + 1
    return sorted(picked, key=lambda s: order[s["id"]])


def ui_suite_entry(ui_scenario: dict[str, Any]) -> dict[str, Any]:
    """The index line of a converted scenario: id, source id and fingerprint, axes, criterion, pick, fingerprint."""
    m = ui_scenario["metadata"]
    return {"id": ui_scenario["id"], "source": m["ui_base"], "source_fingerprint": m["ui_base_fingerprint"], "flow": m["flow_type"],
            "challenge": m["challenge_type"], "arrival": m["image_arrival"], "apps": m["app_group"],
            "criterion": m["ui_criterion"], "pick": m["ui_pick"], "fingerprint": m["fingerprint"]}


def build_ui_suite(*, write: bool = True) -> list[dict[str, Any]]:
    """Select and convert the 50 UI scenarios and (with ``write``) store them, index and scenarios, in
    ``registry/toolsandbox/ui_suite``; returns the index entries."""
    scenarios = select_ui_suite()
    entries = [ui_suite_entry(s) for s in scenarios]
    if write:
        UI_SUITE.write(entries, scenarios)
    return entries


def ui_suite_counts() -> dict[str, dict[str, int]]:
    """Counts of the UI suite over flow, challenge, arrival, app group, criterion and pick."""
    out: dict[str, dict[str, int]] = {}
    for axis in ("flow", "challenge", "arrival", "apps", "criterion", "pick"):
        table: dict[str, int] = {}
        for e in UI_SUITE.entries():
            table[e[axis]] = table.get(e[axis], 0) + 1
        out[axis] = dict(sorted(table.items()))
    return out


if __name__ == "__main__":  # python -m mmenvs.toolsandbox.generator.ui_convert: rebuild the stored UI suite
    built = build_ui_suite()
    print(f"UI suite: {len(built)} scenarios -> {UI_SUITE.index_path()}, {UI_SUITE.scenarios_path()}")
    for axis, table in ui_suite_counts().items():
        print(f"  {axis}: {table}")
