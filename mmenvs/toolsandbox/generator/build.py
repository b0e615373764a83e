"""``generate_scenario``: one seeded, verified MMToolSandbox scenario along the paper's three axes.

The pipeline mirrors the paper's stages with known facts instead of an LLM (seeds/mm-toolsandbox.md §5):
pick the axes and an app group, draw the images' facts (``items.py``), lay out the information
flow (``flows.py``), seed the apps with the user's state and distractors (``sinks.py``), write the
rounds by the arrival pattern and the challenge, derive the expected change from the facts, and
check the scenario by running its reference solution through the env (entity F1 must be 1.0).
"""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import numpy as np

from ..renderers import sampling as S
from ..suites import fingerprint  # the stored suites' hash, re-exported for the generator's users
from . import images as gen_images
from .flows import FLOW_APPS, FLOW_BUILDERS, FLOW_FAMILIES, FLOWS, Plan, kind_word, record_text
from .items import money
from .model import Context, Record, Step, World
from .sinks import APP_GROUPS, SINKS, Sink, ensure_recipient

CHALLENGES: tuple[str, ...] = ("cooperative", "goal_change", "error_correction", "state_mutation")
ARRIVALS: tuple[str, ...] = ("upfront", "progressive", "late", "mixed")
#: accepted spelling of the cooperative baseline (the issue calls it "none")
_CHALLENGE_ALIASES = {"none": "cooperative"}
_TITLES = {"events": ("Event plans", "Outings", "Shows to see"), "bills": ("Expenses recap", "Bills", "Spending summary"),
           "invoices": ("Invoices to pay", "Bills due"), "products": ("Shopping picks", "Things to buy"), "people": ("New contacts",)}


def _check_choice(name: str, value: str | None, valid: tuple[str, ...]) -> None:
    if value is not None and value not in valid:
        raise ValueError(f"unknown {name} {value!r}; valid values: {', '.join(valid)}")


def valid_apps(flow: str) -> tuple[str, ...]:
    """The app groups ``flow`` can drive."""
    _check_choice("flow", flow, FLOWS)
    return FLOW_APPS[flow]


def _families(flow: str, sink: Sink) -> list[str]:
    fams = [f for f in FLOW_FAMILIES[flow] if f in sink.families]
    if flow == "compute" and sink.name in ("calendar", "reminders", "phone"):
        fams = [f for f in fams if f == "events"]  # shifting a start time needs a time
    if flow == "validate" and sink.name != "shopping":
        fams = [f for f in fams if f != "products"]  # "already in the cart" only makes sense for the cart
    return fams


# ---------------------------------------------------------------------------------------------- rounds
def _arrival_rounds(arrival: str, keys: list[str], rounds: int) -> list[list[str]]:
    """Image keys per round for an arrival pattern (``rounds`` ≥ 2; the last round asks for the action)."""
    m = len(keys)
    out: list[list[str]] = [[] for _ in range(rounds)]
    if arrival == "upfront":
        out[0] = list(keys)
    elif arrival == "progressive":  # spread over every round, each round brings at least one image
        bounds = np.linspace(0, m, rounds + 1).round().astype(int)
        for r in range(rounds):
            out[r] = keys[bounds[r]:bounds[r + 1]]
    elif arrival == "late":  # nothing at first; the images come in the last one or two rounds
        if rounds >= 3:
            half = (m + 1) // 2
            out[-2], out[-1] = keys[:half], keys[half:]
        else:
            out[-1] = list(keys)
    else:  # mixed: some up front, a round without images, a single one in between, the rest late
        first = max(1, m // 2 - 1)
        out[0] = keys[:first]
        rest = keys[first:]
        if rounds >= 4 and len(rest) >= 2:
            out[2] = rest[:1]
            rest = rest[1:]
        out[-1] = rest
    return out


def _describe(keys: list[str], kinds: dict[str, str], chat_with: str | None) -> str:
    words: dict[str, int] = {}
    for k in keys:
        w = kind_word(kinds[k])
        if kinds[k] == "chat_screenshot" and chat_with:
            w = f"screenshot of my chat with {chat_with}"
        words[w] = words.get(w, 0) + 1
    parts = [(f"{n} {w}s" if n > 1 and not w.startswith("screenshot") else f"{'a' if w[0] not in 'aeiou' else 'an'} {w}") for w, n in words.items()]
    return parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]


# ---------------------------------------------------------------------------------------------- plan → steps
class _Writer:
    """Turns records into tool steps for one app group while modelling the world's change."""

    def __init__(self, sink: Sink, ctx: Context) -> None:
        self.sink, self.ctx, self.world = sink, ctx, ctx.world
        self.ids: dict[int, int] = {}  # position in the written records -> row id

    def _create(self, rec: Record) -> tuple[list[Step], int]:
        rid = self.world.create(self.sink.table, self.sink.row(rec, self.ctx))
        for table, row, _ in self.sink.side_rows(rec, self.ctx):
            self.world.create(table, row)
        return self.sink.create(rec, self.ctx, rid), rid

    def write(self, records: list[Record], *, stale: dict[int, int] | None = None) -> list[Step]:
        """Create a row per record; ``stale`` maps record positions to an outdated initial row to fix instead."""
        steps: list[Step] = []
        if records:
            steps += self.sink.find(records[0], self.ctx)
        for pos, rec in enumerate(records):
            old = (stale or {}).get(pos)
            if old is not None:
                st, rid = self._fix_stale(old, rec)
            else:
                st, rid = self._create(rec)
            steps += st
            self.ids[pos] = rid
        return steps

    def _fix_stale(self, rid: int, rec: Record) -> tuple[list[Step], int]:
        """Fix an outdated initial row: edit it in place, or cancel/delete it and write a new one."""
        sink, table = self.sink, self.sink.stale_table()
        if sink.revise == "update":
            self.world.update(table, rid, sink.row(rec, self.ctx))
            steps = sink.update(rid, rec, rec, self.ctx)
            if steps is None:
                raise RuntimeError(f"{sink.name}: a stale row must be editable in place")
            return steps, rid
        if sink.revise == "cancel":
            self.world.update(table, rid, {"status": "cancelled"})
            steps = sink.cancel(rid)
        elif table != sink.table:  # email: the stale draft goes, the email is sent
            self.world.delete(table, rid)
            steps = sink.delete_stale(rid)
        else:
            self.world.delete(table, rid)
            steps = sink.delete(rid, self.ctx)
        st, new_id = self._create(rec)
        return steps + st, new_id

    def revise(self, old: list[Record], new: list[Record]) -> list[Step]:
        """Steps that take the rows written for ``old`` to ``new`` (a goal change)."""
        sink = self.sink
        steps: list[Step] = []
        old_pos = {i: r for i, r in enumerate(old)}
        pairs: list[tuple[int | None, Record | None]] = []
        used: set[int] = set()
        for rec in new:  # same label first (a filter that changed), then by position
            match = next((i for i, r in old_pos.items() if i not in used and r.label == rec.label), None)
            if match is not None:
                used.add(match)
            pairs.append((match, rec))
        leftovers = [i for i in old_pos if i not in used]
        pairs = [(p if p is not None else (leftovers.pop(0) if leftovers and sink.revise == "update" else None), r) for p, r in pairs]
        if sink.name == "phone":  # alarms at one time clash: move the earliest first when times shift earlier
            pairs.sort(key=lambda pr: (pr[0] is None, old_pos[pr[0]].time if pr[0] is not None else ""))
        for pos, rec in pairs:
            if pos is None:
                st, rid = self._create(rec)
                steps += st
                continue
            before = old_pos[pos]
            if before == rec:
                continue
            rid = self.ids[pos]
            if sink.revise == "update":
                upd = sink.update(rid, before, rec, self.ctx)
                if upd is None:  # cannot be edited in place (another product): remove and add
                    self.world.delete(sink.table, rid)
                    steps += sink.delete(rid, self.ctx)
                    st, _ = self._create(rec)
                    steps += st
                else:
                    self.world.update(sink.table, rid, sink.row(rec, self.ctx))
                    steps += upd
            elif sink.revise == "cancel":
                self.world.update(sink.table, rid, {"status": "cancelled"})
                steps += sink.cancel(rid)
                st, _ = self._create(rec)
                steps += st
            else:  # append: what was sent stays sent; a follow-up goes out
                st, _ = self._create(rec.with_(text=f"Correction: {rec.text}"))
                steps += st
        for pos in leftovers:
            if pos in {p for p, _ in pairs}:
                continue
            rid = self.ids[pos]
            if sink.revise == "update":
                self.world.delete(sink.table, rid)
                steps += sink.delete(rid, self.ctx)
            elif sink.revise == "cancel":
                self.world.update(sink.table, rid, {"status": "cancelled"})
                steps += sink.cancel(rid)
            else:
                st, _ = self._create(Record(label=self.ctx.title, text=f"Correction: please ignore {old_pos[pos].label}."))
                steps += st
        return steps


# ---------------------------------------------------------------------------------------------- main
def generate_scenario(seed: int, *, flow: str | None = None, challenge: str | None = None, arrival: str | None = None,
                      apps: str | None = None, difficulty: float = 0.5, validate: bool = True, render: bool = True) -> dict[str, Any]:
    """A full scenario (the runtime's JSON format) drawn from ``seed`` along the paper's three axes.

    ``flow`` ∈ ``FLOWS``, ``challenge`` ∈ ``CHALLENGES`` ("none" means cooperative), ``arrival`` ∈
    ``ARRIVALS``, ``apps`` ∈ ``APP_GROUPS`` (the app group that receives the information; it must be
    one ``valid_apps(flow)`` lists); each left ``None`` is drawn from the seed. ``difficulty`` in
    [0, 1] scales image degradation (blur, rotation, noise, distractor text), the number of images
    and the number of distractor entities. Images are renderer specs (``images.py``); with ``render``
    they are drawn now (and cached for the env that loads the scenario); with ``validate`` the
    reference solution is replayed through the env and must reach entity F1 = 1.0.
    Same arguments, same scenario (byte-identical JSON).
    """
    if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool) or seed < 0:
        raise ValueError(f"seed must be a non-negative integer, got {seed!r}")
    challenge = _CHALLENGE_ALIASES.get(challenge, challenge) if challenge is not None else None
    _check_choice("flow", flow, FLOWS)
    _check_choice("challenge", challenge, CHALLENGES)
    _check_choice("arrival", arrival, ARRIVALS)
    _check_choice("app group", apps, APP_GROUPS)
    if not isinstance(difficulty, (int, float)) or isinstance(difficulty, bool) or not 0.0 <= float(difficulty) <= 1.0:
        raise ValueError(f"difficulty must be a number in [0, 1], got {difficulty!r}")
    rng = np.random.default_rng([int(seed), 0x70015])
    flow = flow or FLOWS[int(rng.integers(len(FLOWS)))]
    if apps is not None and apps not in FLOW_APPS[flow]:
        raise ValueError(f"app group {apps!r} cannot be used with flow {flow!r}; valid app groups for {flow}: {', '.join(FLOW_APPS[flow])}")
    apps = apps or FLOW_APPS[flow][int(rng.integers(len(FLOW_APPS[flow])))]
    challenge = challenge or CHALLENGES[int(rng.integers(len(CHALLENGES)))]
    arrival = arrival or ARRIVALS[int(rng.integers(len(ARRIVALS)))]
    difficulty = float(difficulty)
    sink = SINKS[apps]

    ref = dt.date(2026, 1, 5) + dt.timedelta(days=int(rng.integers(0, 280)))
    ref_time = f"{ref.isoformat()}T{S.clock(rng, 8, 19, 15)}:00"
    ctx = Context(rng=rng, ref_date=ref.isoformat(), difficulty=difficulty, world=World())
    families = _families(flow, sink)
    family = families[int(rng.integers(len(families)))]
    ctx.title = S.pick(rng, _TITLES[family])
    if sink.person:
        ensure_recipient(ctx)
    # 3-6 images: the items plus the flow's context image; harder scenarios carry more of them
    # validate on events: half the time the clashes are in a calendar screenshot rather than in the app
    ctx.notes["calendar_screenshot"] = flow == "validate" and family == "events" and bool(rng.uniform() < 0.5)
    context_images = 1 if flow in ("compute", "lookup_chain", "cross_reference") or ctx.notes["calendar_screenshot"] else 0
    low = max(3 - context_images, 2 if flow != "filter" else 3)
    high = 6 - context_images
    n_items = low + min(high - low, int((high - low + 1) * (0.3 * difficulty + 0.7 * rng.uniform())))
    if flow == "filter" and family == "people":
        n_items = max(n_items, 4)
    plan: Plan = FLOW_BUILDERS[flow](ctx, sink, family, n_items)
    everything = {i.key for i in plan.items} | {k for k, _, _ in plan.context}

    # records under the user's request, and (goal change) under the changed goal
    raw_main = plan.select(everything, "main")
    main = sink.merge(raw_main, ctx)
    alt = sink.merge(plan.select(everything, "alt"), ctx) if challenge == "goal_change" else None
    if not main:
        raise RuntimeError(f"seed {seed}: the {flow} flow selected nothing")  # flows always keep at least one record
    sink.setup(ctx, main)
    if ctx.notes.get("pending_cart"):  # validate on products: some are in the cart already
        for label in ctx.notes["pending_cart"]:
            ctx.world.add("cart_items", {"product_id": ctx.notes["product_ids"][label], "quantity": 1})

    # -- challenge
    stale: dict[int, int] = {}
    stale_phrase = ""
    wrong_phrase = ""
    careless_records: list[Record] | None = None
    if challenge == "state_mutation":
        rid = ctx.world.add(sink.stale_table(), sink.stale(main[0], ctx))
        stale[0] = rid
        stale_phrase = {
            "update": f" I already have an outdated entry for {main[0].label if sink.multi else ctx.title} in there — update that one instead of adding a new one.",
            "cancel": f" I already sent {ctx.recipient['name'] if ctx.recipient else 'them'} a request for {main[0].label} with the wrong amount — cancel that one first.",
            "append": (f" Delete the placeholder message I sent {ctx.recipient['name'] if ctx.recipient else 'them'} earlier ('Details to follow: {main[0].label}') first."
                       if sink.name == "messaging" else " There's an old draft with that subject — delete it, then send a fresh email."),
        }[sink.revise]
    elif challenge == "error_correction":
        wrong_phrase, careless_raw = _wrong_detail(sink, ctx, raw_main)
        careless_records = sink.merge(careless_raw, ctx)

    # -- rounds
    rounds_n = int(rng.integers(2, 6))
    keys = [k for k, _, _ in plan.images()]
    if arrival == "progressive":
        rounds_n = int(np.clip(rounds_n, 2, len(keys)))
    if arrival == "mixed":
        rounds_n = max(rounds_n, 3)
    per_round = _arrival_rounds(arrival, keys, rounds_n)
    kinds = {k: kind for k, kind, _ in plan.images()}
    chat_with = None
    for k, kind, facts in plan.images():
        if kind == "chat_screenshot":
            chat_with = facts["contact"]
    order = [k for r in per_round for k in r]  # store ids follow arrival order
    images_meta = [(k, kinds[k]) for k in order]

    writer = _Writer(sink, ctx)
    solution: list[Step] = []
    rounds: list[dict[str, Any]] = []
    seen: set[str] = set()
    for r in range(rounds_n):
        new = per_round[r]
        seen |= set(new)
        last = r == rounds_n - 1
        intro = ""
        if new:
            intro = f"{'Here is' if len(new) == 1 else 'Here are'} {_describe(new, kinds, chat_with)}. "
        if not last:
            if not new:
                if not seen:
                    query = f"I'm going to send you some pictures about {ctx.title.lower()}. Before that: what's on my calendar today?"
                    say = "Here is today's calendar — send the pictures over and tell me what you need."
                    solution.append({"tool": "calendar_list_events_on_date", "arguments": {"date": ctx.ref_date}})
                else:
                    query = "Before you do anything: list what I've sent so far, with the key details."
                    say = _summary(plan, sorted(seen))
            else:
                query = intro + ("What do you see on these?" if len(new) > 1 else "What does it say?")
                say = _summary(plan, new)
            rounds.append({"query": query, "provide": list(new)})
            solution.append({"say": say})
            continue
        ask = sink.ask(plan.what("main"), ctx)
        refer = "Looking back at the pictures I sent, please" if arrival == "upfront" else "Please"
        query = f"{intro}{refer} {ask}.{stale_phrase}{wrong_phrase}".replace("..", ".")
        round_: dict[str, Any] = {"query": query, "provide": list(new)}
        steps = writer.write(main, stale=stale)
        solution += steps
        done = f"Done: {'; '.join(record_text(m) if m.kind != 'merged' else m.text for m in main)}."
        if wrong_phrase:
            done += " Note: I went by what the image shows, which differs from the detail you mentioned."
        solution.append({"say": done})
        if challenge == "goal_change":
            round_["goal_change"] = {"text": plan.pivot}
            solution += writer.revise(main, alt or [])
            solution.append({"say": "Updated: " + ("; ".join(m.text for m in alt) if alt else "nothing left to do") + "."})
        elif challenge == "error_correction":
            round_["correction"] = {"text": "Sorry, I think I got that detail wrong — go with what the picture shows."}
            solution.append({"say": "No problem — I had already used the values shown in the picture."})
        rounds.append(round_)

    columns = {sink.table: list(sink.columns)}
    for rec in main + (alt or []):
        for table, _, cols in sink.side_rows(rec, ctx):
            columns[table] = list(cols)
    expected = _clean(ctx.world.expected_changes(columns))
    if not expected:  # a goal change that undid everything leaves nothing to score: not a useful scenario
        raise RuntimeError(f"seed {seed}: empty expected change")

    scenario_id = f"gen-{flow}-{challenge}-{arrival}-{apps}-{seed}"
    images_specs = {}
    spec_by_key = {k: (kind, facts) for k, kind, facts in plan.images()}
    for idx, key in enumerate(order):
        kind, facts = spec_by_key[key]
        images_specs[key] = gen_images.image_spec(kind, int(rng.integers(0, 2**31 - 1)), difficulty, facts)
    counterfactuals = _counterfactuals(sink, ctx, plan, per_round[0], main, alt, careless_records, challenge, arrival)
    data: dict[str, Any] = {
        "id": scenario_id,
        "description": f"{flow.replace('_', ' ').capitalize()} over {len(order)} images into {apps} ({challenge.replace('_', ' ')}, {arrival} arrival).",
        "reference_time": ref_time,
        "initial_entities": ctx.world.entities,
        "images": images_specs,
        "rounds": rounds,
        "expected_changes": expected,
        "reference_solution": solution,
        "metadata": {
            "flow_type": flow, "challenge_type": challenge, "image_arrival": arrival, "apps": list(sink.apps),
            "app_group": apps, "image_kinds": sorted({kind for _, kind in images_meta}),
            "image_kind_list": [kind for _, kind in images_meta], "num_images": len(order), "num_rounds": rounds_n,
            "difficulty": round(difficulty, 3), "seed": int(seed), "family": family,
            "counterfactuals": counterfactuals,
        },
        "task_completion_criteria": _criteria(sink, ctx, alt if alt is not None else main),
    }
    data = json.loads(json.dumps(data))  # plain JSON types only (no tuples or numpy scalars)
    data["metadata"]["fingerprint"] = fingerprint(data)
    if render:
        for key, spec in data["images"].items():
            gen_images.render_spec(spec, f"{scenario_id}: images.{key}")
    if validate:
        from .validate import validate_scenario

        validate_scenario(data)
    return data


def _clean(changes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Drop columns whose expected value is None from created rows (nothing to compare there)."""
    for change in changes:
        if change["op"] == "create":
            change["rows"] = [{k: v for k, v in row.items() if v is not None} for row in change["rows"]]
    return changes


def _summary(plan: Plan, keys: list[str]) -> str:
    parts = []
    for it in plan.items:
        if it.key in keys:
            parts.append(record_text(Record(label=it.label, text=it.label, amount=it.amount, date=it.date, time=it.time, place=it.place,
                                            person=it.person, kind=it.kind if it.family != "people" else "person")))
    if any(k not in {i.key for i in plan.items} for k in keys):
        parts.append("and the context you added")
    return "I see: " + "; ".join(parts) + "."


def _wrong_detail(sink: Sink, ctx: Context, main: list[Record]) -> tuple[str, list[Record]]:
    """The user's wrong detail about an image, and the records a blind agent would write from it."""
    rec = main[0]
    if sink.error_field == "time" and rec.time:
        wrong = S.add_minutes(rec.time, 60)
        label = rec.label
        bad = rec.with_(time=wrong)
        return f" (I think {label} is at {wrong}.)", [bad] + main[1:]
    if sink.error_field == "product":
        other = ctx.notes["lookalike"][rec.label]
        return f" (It's the {other}, I believe.)", [rec.with_(label=other)] + main[1:]
    if sink.error_field == "phone" and rec.person and rec.person.get("phone_number"):
        number = rec.person["phone_number"]
        wrong = number[:-2] + f"{(int(number[-2:]) + 11) % 100:02d}"
        return f" (Their number is {wrong}, if I remember right.)", [rec.with_(person={**rec.person, "phone_number": wrong})] + main[1:]
    amount = rec.amount if rec.amount is not None else 10.0
    wrong = round(amount + max(5.0, round(amount * 0.2)), 2)
    bad = rec.with_(amount=wrong)
    if rec.kind in ("total", "share", "merged"):
        bad = bad.with_(text=rec.text.replace(money(amount), money(wrong)))
    else:
        bad = bad.with_(text=record_text(bad))
    if rec.kind == "share":
        return f" (I worked each share out as {money(wrong)}.)", [bad] + main[1:]
    if rec.kind == "total":
        return f" (I think the total is {money(wrong)}.)", [bad] + main[1:]
    return f" (I think {rec.label} came to {money(wrong)}.)", [bad] + main[1:]


def _counterfactuals(sink: Sink, ctx: Context, plan: Plan, first_round: list[str], main: list[Record], alt: list[Record] | None,
                     careless: list[Record] | None, challenge: str, arrival: str) -> dict[str, Any]:
    """Reference-format solutions of two careless agents, to measure how much the challenge matters.

    ``ignore_interjections``: acts on the first request (goal change) or on the user's wrong detail
    (error correction) and never fixes it. ``premature``: acts on the images of the first round only.
    Both are modelled on a copy of the world, so the real solution is unaffected.
    """
    out: dict[str, Any] = {}

    def steps_for(records: list[Record]) -> list[Step]:
        shadow = Context(rng=np.random.default_rng(0), ref_date=ctx.ref_date, difficulty=ctx.difficulty, world=ctx.world.copy(),
                         recipient=ctx.recipient, names=set(ctx.names), title=ctx.title, notes=dict(ctx.notes))
        # the stale row of a state mutation is still there: a careless agent adds rather than fixes
        return _Writer(sink, shadow).write(records) + [{"say": "Done."}]

    if challenge == "goal_change":
        out["ignore_interjections"] = steps_for(main)
    elif challenge == "error_correction" and careless is not None:
        out["ignore_interjections"] = steps_for(careless)
    if arrival != "upfront":
        early = sink.merge(plan.select(set(first_round), "main"), ctx)
        out["premature"] = steps_for(early) if early else [{"say": "Done."}]
    return out


def _criteria(sink: Sink, ctx: Context, records: list[Record]) -> str:
    parts = [f"{sink.name}: {r.text}" for r in records]
    if ctx.recipient and sink.person:
        parts.append(f"for {ctx.recipient['name']}")
    return "The final state holds " + "; ".join(parts) + "."
