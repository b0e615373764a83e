"""VTC-Bench problems: the format, reference-chain execution, answer read-outs, the pinned suite and
the official TSV loader.

A problem is data: ``id``, ``category``, ``question``, ``choices`` (or ``None`` for open answers),
``answer`` (a letter for choices, the text for open answers), ``reference_chain`` and ``readout``.
Generated problems also carry ``generator``, ``seed`` and ``params``: their image is regenerated from
those on load, so the suite file holds no pixels.

Reference chains are lists of ``{"tool": name, "arguments": {...}}``. Argument strings may refer to
earlier steps: ``"$input"`` is the problem image, ``"$2"`` the output image of step 2 (0-based), and
``"$2.components.0.bbox"`` a value in step 2's numbers. A ``readout`` says how the answer follows
from the chain's numbers: ``{"kind": "expr", "expr": "round($4.area * 0.5, 1)"}`` (a small, safe
arithmetic language, see ``evaluate_expr``) or ``{"kind": "visual", "min_similarity": 0.8}`` when the
answer is read off the chain's final image by eye (OCR, zoomed tags): then validation checks that the
final image matches the clean rendering of the answer the generator knows.
"""

from __future__ import annotations

import ast
import base64
import csv
import io
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Mapping, Sequence

import numpy as np
from PIL import Image

from mmenvs.core import ImageStore, load_jsonl, registry_path
from mmenvs.core.budget import DEFAULT_BUDGET, BudgetExceeded
from mmenvs.core.images import allowed_image_path, read_image_file

from .tools import TOOLS, ToolCallResult, ToolError, call_tool, map_paper_name

CATEGORIES: dict[str, int] = {
    "math": 110, "measurement": 105, "chart": 100, "color": 90, "counting": 85,
    "ocr": 50, "perceptual_restoration": 50, "attention_focusing": 45, "spatial": 45,
}
#: The paper's Table 4 column order and headers.
TABLE_ORDER: list[tuple[str, str]] = [
    ("ocr", "OCR"), ("attention_focusing", "Attn."), ("perceptual_restoration", "Rest."), ("chart", "Chart"),
    ("measurement", "Meas."), ("counting", "Count."), ("math", "Math"), ("spatial", "Spat."), ("color", "Color"),
]
LETTERS = "ABCDEFGH"
SUITE_FILE = ("vtc", "suite.jsonl")


@dataclass
class Problem:
    """One VTC-Bench problem (see the module docstring for the chain and read-out grammar)."""

    id: str
    category: str
    question: str
    answer: str
    choices: list[str] | None = None
    reference_chain: list[dict[str, Any]] = field(default_factory=list)
    readout: dict[str, Any] = field(default_factory=lambda: {"kind": "none"})
    generator: str | None = None
    seed: int | None = None
    params: dict[str, Any] = field(default_factory=dict)
    image_path: str | None = None
    image: np.ndarray | None = field(default=None, repr=False, compare=False)

    @property
    def answer_type(self) -> str:
        return "choice" if self.choices else "open"

    def prompt(self) -> str:
        """The question with its lettered options."""
        if not self.choices:
            return self.question
        options = "\n".join(f"{LETTERS[i]}. {c}" for i, c in enumerate(self.choices))
        return f"{self.question}\n{options}"

    def to_dict(self) -> dict[str, Any]:
        """The JSON form (no pixels)."""
        out: dict[str, Any] = {"id": self.id, "category": self.category, "question": self.question, "choices": self.choices,
                               "answer": self.answer, "answer_type": self.answer_type, "reference_chain": self.reference_chain,
                               "readout": self.readout}
        if self.generator is not None:
            out.update(generator=self.generator, seed=self.seed, params=self.params)
        if self.image_path is not None:
            out["image_path"] = self.image_path
        return out


def image_roots(image_root: str | Path | None = None) -> list[Path]:
    """The folders a problem's ``image_path`` may name files in: the registry, and ``image_root`` when
    the user opted one in (the env's ``image_root=`` kwarg)."""
    return [registry_path()] + ([Path(image_root)] if image_root is not None else [])


def problem_from_dict(data: Mapping[str, Any], source: str = "problem", *, image_root: str | Path | None = None) -> Problem:
    """Validate a problem dict (errors name the source, field and value) and build the ``Problem``.
    A generated problem's image is regenerated (its ``generator``, ``seed`` and ``params`` checked
    here); otherwise ``image_path`` must name a file inside the registry or ``image_root``, refused
    before anything is opened when it lies outside (``..``, an absolute path elsewhere, a symlink out)."""
    if not isinstance(data, Mapping):
        raise ValueError(f"{source}: a problem must be a JSON object, got {type(data).__name__}")
    for key in ("id", "category", "question", "answer"):
        if not isinstance(data.get(key), str) or not data[key].strip():
            raise ValueError(f"{source}: field {key!r} must be a non-empty string, got {data.get(key)!r}")
    choices = data.get("choices")
    if choices is not None:
        if not isinstance(choices, list) or not (2 <= len(choices) <= len(LETTERS)) or not all(isinstance(c, str) for c in choices):
            raise ValueError(f"{source}: field 'choices' must be null or a list of 2..{len(LETTERS)} strings, got {choices!r}")
        if data["answer"] not in LETTERS[: len(choices)]:
            raise ValueError(f"{source}: field 'answer' must be a letter among {LETTERS[: len(choices)]} for a choice problem, got {data['answer']!r}")
    chain = data.get("reference_chain", [])
    if not isinstance(chain, list):
        raise ValueError(f"{source}: field 'reference_chain' must be a list, got {type(chain).__name__}")
    for i, step in enumerate(chain):
        if not isinstance(step, Mapping) or not isinstance(step.get("tool"), str):
            raise ValueError(f"{source}: reference_chain[{i}] must be an object with a 'tool' name, got {step!r}")
        if step["tool"] not in TOOLS:
            raise ValueError(f"{source}: reference_chain[{i}] names unknown tool {step['tool']!r}")
        if not isinstance(step.get("arguments", {}), Mapping):
            raise ValueError(f"{source}: reference_chain[{i}].arguments must be an object")
    readout = data.get("readout", {"kind": "none"})
    if not isinstance(readout, Mapping) or readout.get("kind") not in ("expr", "visual", "none"):
        raise ValueError(f"{source}: field 'readout' must be an object with kind 'expr', 'visual' or 'none', got {readout!r}")
    if readout["kind"] == "expr" and not isinstance(readout.get("expr"), str):
        raise ValueError(f"{source}: readout of kind 'expr' needs an 'expr' string")
    unknown = sorted(str(k)[:64] for k in data if k not in _PROBLEM_FIELDS)
    if unknown:
        raise ValueError(f"{source}: unknown field(s) {unknown}; a problem has {', '.join(sorted(_PROBLEM_FIELDS))}")
    generator, image_path = data.get("generator"), data.get("image_path")
    if generator is None and image_path is None:
        raise ValueError(f"{source}: a problem needs either 'generator'+'seed' (regenerated image) or 'image_path'")
    params: dict[str, Any] = {}
    if generator is not None:
        from .generators import GENERATORS, check_params, check_seed

        if generator not in GENERATORS:
            raise ValueError(f"{source}: field 'generator' names unknown generator {str(generator)[:64]!r}; known: {', '.join(GENERATORS)}")
        check_seed(data.get("seed"), f"{source}: field 'seed'")
        params = check_params(generator, data.get("params"), f"{source}: field 'params'")
    elif data.get("params") or data.get("seed") is not None:
        raise ValueError(f"{source}: fields 'seed' and 'params' need a 'generator' (an image_path problem has neither)")
    if image_path is not None:
        if generator is not None:
            raise ValueError(f"{source}: give either 'generator' or 'image_path', not both")
        image_path = str(allowed_image_path(image_path, image_roots(image_root), f"{source}: field 'image_path'"))
    return Problem(
        id=data["id"], category=data["category"], question=data["question"], answer=data["answer"], choices=list(choices) if choices else None,
        reference_chain=[{"tool": s["tool"], "arguments": dict(s.get("arguments", {}))} for s in chain], readout=dict(readout),
        generator=generator, seed=data.get("seed"), params=params, image_path=image_path,
    )


#: The fields a problem file may hold (``answer_type`` is written by ``to_dict`` and derived on load).
_PROBLEM_FIELDS = {"id", "category", "question", "answer", "choices", "answer_type", "reference_chain", "readout", "generator", "seed",
                   "params", "image_path"}


def problem_image(problem: Problem) -> np.ndarray:
    """The problem's RGB image: regenerated from (generator, seed, params), or read from ``image_path``."""
    if problem.image is not None:
        return problem.image
    if problem.generator is not None:
        from .generators import render

        return render(problem.generator, int(problem.seed or 0), problem.params)
    return read_image_file(str(problem.image_path), f"problem {problem.id}: field 'image_path'")


# ---------------------------------------------------------------------------------------- references
_REF = re.compile(r"\$(input|\d+)((?:\.[A-Za-z_][A-Za-z_0-9]*|\.\d+)*)")
_WHOLE_REF = re.compile(r"^\$(input|\d+)((?:\.[A-Za-z_][A-Za-z_0-9]*|\.\d+)*)$")


def lookup(numbers: Any, path: str, where: str = "") -> Any:
    """The value at a dotted path (``components.0.bbox``) inside a result's numbers."""
    value = numbers
    for part in [p for p in path.split(".") if p]:
        if isinstance(value, list) and part.isdigit():
            index = int(part)
            if index >= len(value):
                raise ToolError("bad_reference", f"{where}: index {index} is out of range (the list has {len(value)} items)")
            value = value[index]
        elif isinstance(value, Mapping) and part in value:
            value = value[part]
        else:
            raise ToolError("bad_reference", f"{where}: no field {part!r} in {json.dumps(value)[:120]}")
    return value


def resolve_arguments(arguments: Any, results: Sequence[ToolCallResult], input_id: str = "img_0", where: str = "") -> Any:
    """Replace ``$input`` / ``$k`` / ``$k.path`` references with ids and values from earlier results."""
    if isinstance(arguments, Mapping):
        return {k: resolve_arguments(v, results, input_id, where) for k, v in arguments.items()}
    if isinstance(arguments, list):
        return [resolve_arguments(v, results, input_id, where) for v in arguments]
    if isinstance(arguments, str):
        match = _WHOLE_REF.match(arguments)
        if match:
            step, path = match.group(1), match.group(2)
            if step == "input":
                return input_id
            index = int(step)
            if index >= len(results):
                raise ToolError("bad_reference", f"{where}: reference {arguments!r} points at step {index}, but only {len(results)} steps ran")
            return results[index].output if not path else lookup(results[index].numbers, path, f"{where} {arguments}")
    return arguments


def run_chain(store: ImageStore, chain: Sequence[Mapping[str, Any]], input_id: str = "img_0") -> list[ToolCallResult]:
    """Execute a reference chain on ``store`` (whose ``input_id`` is the problem image)."""
    results: list[ToolCallResult] = []
    for i, step in enumerate(chain):
        arguments = resolve_arguments(step.get("arguments", {}), results, input_id, f"reference_chain[{i}]")
        results.append(call_tool(store, step["tool"], arguments))
    return results


# ---------------------------------------------------------------------------------------- read-out expressions
def _angle_at(vertices: Sequence[Sequence[float]], point: Sequence[float]) -> float:
    """Interior angle (degrees) of a polygon at the vertex nearest ``point``."""
    pts = [tuple(map(float, v)) for v in vertices]
    if len(pts) < 3:
        raise ValueError(f"angle_at needs a polygon of at least 3 vertices, got {len(pts)}")
    k = min(range(len(pts)), key=lambda i: math.dist(pts[i], point))
    a, b, c = pts[k - 1], pts[k], pts[(k + 1) % len(pts)]
    v1, v2 = (a[0] - b[0], a[1] - b[1]), (c[0] - b[0], c[1] - b[1])
    cos = (v1[0] * v2[0] + v1[1] * v2[1]) / (math.hypot(*v1) * math.hypot(*v2))
    return math.degrees(math.acos(max(-1.0, min(1.0, cos))))


def _direction(a: Sequence[float], b: Sequence[float]) -> str:
    """Where point ``a`` lies relative to ``b``: left/right/above/below (image y grows downward)."""
    dx, dy = a[0] - b[0], a[1] - b[1]
    if abs(dx) >= abs(dy):
        return "left" if dx < 0 else "right"
    return "above" if dy < 0 else "below"


def _shape_name(vertex_count: int) -> str:
    return {3: "triangle", 4: "square", 5: "pentagon", 6: "hexagon"}.get(int(vertex_count), "circle" if vertex_count >= 8 else f"{vertex_count}-gon")


def _argmax_label(labels: Sequence[str], values: Sequence[float]) -> str:
    return labels[max(range(len(values)), key=lambda i: values[i])]


EXPR_FUNCTIONS: dict[str, Any] = {
    "round": round, "abs": abs, "min": min, "max": max, "sqrt": math.sqrt, "int": int, "float": float, "len": len,
    "dist": lambda p, q: math.dist(p, q), "angle_at": _angle_at, "direction": _direction, "shape_name": _shape_name,
    "argmax_label": _argmax_label, "pi": math.pi,
}
_ALLOWED_NODES = (ast.Expression, ast.BinOp, ast.UnaryOp, ast.Constant, ast.Name, ast.Load, ast.Call, ast.List, ast.Tuple,
                  ast.Add, ast.Sub, ast.Mult, ast.Div, ast.Pow, ast.FloorDiv, ast.Mod, ast.USub, ast.UAdd)


def evaluate_expr(expr: str, results: Sequence[ToolCallResult]) -> Any:
    """Evaluate a read-out expression over chain results. ``$k.path`` reads step k's numbers; only
    arithmetic, literals and the functions in ``EXPR_FUNCTIONS`` are allowed."""
    values: dict[str, Any] = {}

    def substitute(match: re.Match[str]) -> str:
        name = f"_v{len(values)}"
        step = match.group(1)
        if step == "input":
            raise ValueError(f"read-out {expr!r}: $input has no numbers")
        index = int(step)
        if index >= len(results):
            raise ValueError(f"read-out {expr!r}: step {index} did not run ({len(results)} steps)")
        values[name] = lookup(results[index].numbers, match.group(2), f"read-out {expr!r}")
        return name

    source = _REF.sub(substitute, expr)
    tree = ast.parse(source, mode="eval")
    for node in ast.walk(tree):
        if not isinstance(node, _ALLOWED_NODES):
            raise ValueError(f"read-out {expr!r}: {type(node).__name__} is not allowed")
        if isinstance(node, ast.Name) and node.id not in values and node.id not in EXPR_FUNCTIONS:
            raise ValueError(f"read-out {expr!r}: unknown name {node.id!r}")
        if isinstance(node, ast.Call) and not (isinstance(node.func, ast.Name) and node.func.id in EXPR_FUNCTIONS):
            raise ValueError(f"read-out {expr!r}: only the functions {', '.join(EXPR_FUNCTIONS)} may be called")
    return eval(compile(tree, "<readout>", "eval"), {"__builtins__": {}}, {**EXPR_FUNCTIONS, **values})  # noqa: S307 - AST checked above


_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


def choice_number(text: str) -> float | None:
    """The first number in an option's text ("12.5 cm²" → 12.5)."""
    match = _NUMBER.search(text.replace(",", ""))
    return float(match.group()) if match else None


def answer_from_value(problem: Problem, value: Any) -> str:
    """The answer a read-out value gives: for choices, the letter of the matching (or numerically
    nearest) option; for open answers, the value as text."""
    if problem.choices:
        if isinstance(value, str):
            for i, option in enumerate(problem.choices):
                if option.strip().lower() == value.strip().lower():
                    return LETTERS[i]
            return "?"
        numbers = [choice_number(c) for c in problem.choices]
        best = min((i for i, n in enumerate(numbers) if n is not None), key=lambda i: abs(numbers[i] - float(value)))  # type: ignore[operator]
        return LETTERS[best]
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    return str(value)


def similarity(a: np.ndarray, b: np.ndarray) -> float:
    """Pearson correlation of two images' intensities after resizing ``a`` to ``b``'s size (1 = same picture)."""
    import cv2

    ga = a if a.ndim == 2 else cv2.cvtColor(np.ascontiguousarray(a[:, :, :3]), cv2.COLOR_RGB2GRAY)
    gb = b if b.ndim == 2 else cv2.cvtColor(np.ascontiguousarray(b[:, :, :3]), cv2.COLOR_RGB2GRAY)
    if ga.shape != gb.shape:
        ga = cv2.resize(ga, (gb.shape[1], gb.shape[0]), interpolation=cv2.INTER_AREA)
    x, y = ga.astype(np.float64).ravel(), gb.astype(np.float64).ravel()
    x, y = x - x.mean(), y - y.mean()
    denom = math.sqrt(float(x @ x) * float(y @ y))
    return float(x @ y / denom) if denom else 0.0


@dataclass
class Validation:
    """Result of executing a problem's reference chain: whether it reproduces the answer, and why."""

    ok: bool
    derived: str | None
    value: Any
    detail: str


def validate_problem(problem: Problem, image: np.ndarray | None = None, target: np.ndarray | None = None) -> Validation:
    """Run the reference chain on the problem image and check its read-out gives the stored answer.

    For visual read-outs, ``target`` (the clean rendering the answer is read from; regenerated for
    generated problems) must match the chain's final image with at least ``min_similarity``."""
    if problem.readout.get("kind") == "none":
        return Validation(False, None, None, "problem has no executable read-out (loaded from TSV)")
    image = problem_image(problem) if image is None else image
    store = ImageStore()
    store.add(image)
    try:
        results = run_chain(store, problem.reference_chain)
    except (ToolError, ValueError) as exc:
        return Validation(False, None, None, f"chain failed: {exc}")
    if problem.readout["kind"] == "visual":
        if target is None:
            if problem.generator is None:
                return Validation(False, None, None, "visual read-out without a target image")
            from .generators import build

            target = build(problem.generator, int(problem.seed or 0), problem.params).target
        final = store.get(results[-1].output) if results else image
        score = similarity(final, target)
        ok = score >= float(problem.readout.get("min_similarity", 0.8))
        return Validation(ok, problem.answer if ok else None, round(score, 4), f"similarity {score:.3f} (need {problem.readout.get('min_similarity', 0.8)})")
    try:
        value = evaluate_expr(problem.readout["expr"], results)
    except (ToolError, ValueError, ArithmeticError, TypeError, IndexError) as exc:
        return Validation(False, None, None, f"read-out failed: {exc}")
    derived = answer_from_value(problem, value)
    expected = problem.answer if problem.choices else problem.answer.strip()
    ok = derived == expected
    return Validation(ok, derived, value, f"read-out {value!r} → {derived!r}, expected {expected!r}")


# ---------------------------------------------------------------------------------------- the pinned suite
def load_suite(path: str | Path | None = None, *, image_root: str | Path | None = None) -> list[Problem]:
    """The pinned suite (``registry/vtc/suite.jsonl`` by default), one problem per line; ``image_path``
    entries may name files in the registry or ``image_root``."""
    path = Path(path) if path is not None else registry_path(*SUITE_FILE)
    return [problem_from_dict(data, where, image_root=image_root) for where, data in load_jsonl(path, "the VTC-Bench suite")]


def write_suite(problems: Iterable[Problem], path: str | Path) -> Path:
    """Write problems as JSONL (no pixels)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8") as handle:
        for problem in problems:
            handle.write(json.dumps(problem.to_dict(), ensure_ascii=False, separators=(",", ":")) + "\n")
    return path


# ---------------------------------------------------------------------------------------- official TSV format
_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"',
                         "\u201f": '"', "\u2032": "'", "\u2033": '"', "\u00a0": " "})
_CHAIN_COLUMNS = ("tool_chain", "toolchain", "reference_chain", "gt_tools", "gt_toolchain", "ground_truth_tools", "tools", "tool_list")
_CATEGORY_ALIASES = {
    "robust ocr": "ocr", "ocr": "ocr", "attention focusing": "attention_focusing", "attention": "attention_focusing",
    "perceptual restoration": "perceptual_restoration", "restoration": "perceptual_restoration", "chart": "chart",
    "measurement": "measurement", "measure": "measurement", "counting": "counting", "count": "counting", "math": "math",
    "spatial reasoning": "spatial", "spatial": "spatial", "color": "color", "colour": "color",
}


def normalise_quotes(text: str) -> str:
    """Curly quotes and non-breaking spaces → plain ASCII quotes and spaces."""
    return text.translate(_QUOTES)


def _parse_chain_cell(cell: str, where: str) -> list[dict[str, Any]]:
    cell = normalise_quotes(cell).strip()
    if not cell:
        return []
    names: list[Any]
    if cell[0] in "[{":
        try:
            parsed = json.loads(cell)
        except json.JSONDecodeError:
            try:
                parsed = ast.literal_eval(cell)
            except (ValueError, SyntaxError):
                raise ValueError(f"{where}: cannot parse the tool chain {cell[:80]!r} (expected a JSON/Python list or names separated by '->')") from None
        names = parsed if isinstance(parsed, list) else [parsed]
    else:
        names = [p for p in re.split(r"\s*(?:->|→|=>|,|;|\|)\s*", cell) if p]
    chain = []
    for step in names:
        raw = step.get("tool", step.get("name")) if isinstance(step, Mapping) else step
        args = dict(step.get("param", step.get("arguments", {})) or {}) if isinstance(step, Mapping) else {}
        ours = map_paper_name(str(raw))
        if ours is None:
            raise ValueError(f"{where}: unknown tool name {raw!r} in the tool chain")
        chain.append({"tool": ours, "arguments": args})
    return chain


def _decode_image_cell(cell: str, image_dir: Path | None, where: str) -> tuple[np.ndarray | None, str | None]:
    cell = cell.strip()
    if not cell:
        raise ValueError(f"{where}: empty image cell")
    if image_dir is not None and len(cell) < 1024:
        try:  # a file name: only inside image_dir (refused before anything is opened otherwise)
            candidate = allowed_image_path(cell, [image_dir], where)
        except ValueError:
            if ".." in Path(cell).parts or Path(cell).is_absolute():
                raise
            candidate = None
        if candidate is not None and candidate.is_file():
            return None, str(candidate)
    try:  # VLMEvalKit-style TSVs embed the image as base64
        raw = base64.b64decode(cell, validate=True)
        with Image.open(io.BytesIO(raw)) as im:
            DEFAULT_BUDGET.check_image(*im.size, f"{where}: the embedded image")  # from the header, before decoding
            return np.asarray(im.convert("RGB")), None
    except BudgetExceeded:
        raise
    except (ValueError, OSError, Image.DecompressionBombError):
        pass
    if image_dir is None:
        raise ValueError(f"{where}: {cell[:60]!r} is not a base64 image, and no image directory was given to resolve file names")
    raise ValueError(f"{where}: image file {cell[:120]!r} not found in {image_dir} (and the cell is not a base64 image)")


def load_tsv(path: str | Path, image_dir: str | Path | None = None) -> list[Problem]:
    """Load problems in the official VTC-Bench TSV layout (``index, id, category, image, question,
    answer, A..D`` and a ground-truth tool-chain column). Images are files under ``image_dir`` (or
    base64 in the cell); curly quotes are normalised; the paper's tool names are mapped onto ours.
    Errors name the file, the row and the column."""
    path = Path(path)
    folder = Path(image_dir) if image_dir is not None else None
    try:
        text = path.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise ValueError(f"{path}: cannot read: {exc.strerror or exc}") from None
    reader = csv.DictReader(io.StringIO(text), delimiter="\t", quoting=csv.QUOTE_NONE)
    header = [h.strip().lower() for h in (reader.fieldnames or [])]
    required = ("question", "answer", "image")
    missing = [c for c in required if c not in header]
    if missing:
        raise ValueError(f"{path}: header lacks column(s) {', '.join(missing)}; found {', '.join(header) or 'nothing'}")
    chain_column = next((c for c in _CHAIN_COLUMNS if c in header), None)
    problems = []
    for row_number, raw in enumerate(reader, start=2):  # row 1 is the header
        row = {(k or "").strip().lower(): normalise_quotes(v or "").strip() for k, v in raw.items() if k is not None}
        if None in raw and raw[None]:
            raise ValueError(f"{path}: row {row_number}: {len(raw[None])} more cells than header columns")
        where = f"{path}: row {row_number}"
        question = row.get("question", "")
        if not question:
            raise ValueError(f"{where}, column 'question': empty")
        choices = [row[letter.lower()] for letter in "ABCDEFGH" if row.get(letter.lower())]
        answer = row.get("answer", "")
        if not answer:
            raise ValueError(f"{where}, column 'answer': empty")
        if choices:
            letter = answer.strip().rstrip(".").upper()
            if letter not in LETTERS[: len(choices)]:
                texts = [c.strip().lower() for c in choices]
                if answer.strip().lower() in texts:
                    letter = LETTERS[texts.index(answer.strip().lower())]
                else:
                    raise ValueError(f"{where}, column 'answer': {answer!r} is neither an option letter "
                                     f"({LETTERS[: len(choices)]}) nor an option's text")
            answer = letter
        category = row.get("category", "") or "unknown"
        category = _CATEGORY_ALIASES.get(category.strip().lower(), category.strip().lower().replace(" ", "_"))
        chain = _parse_chain_cell(row.get(chain_column, ""), f"{where}, column {chain_column!r}") if chain_column else []
        image, image_path = _decode_image_cell(row.get("image", ""), folder, f"{where}, column 'image'")
        ident = row.get("id") or row.get("index") or str(row_number - 1)
        problem = Problem(id=f"tsv_{ident}", category=category, question=question, answer=answer, choices=choices or None,
                          reference_chain=chain, readout={"kind": "none"}, image_path=image_path, image=image)
        problems.append(problem)
    return problems


def write_tsv(problems: Sequence[Problem], path: str | Path, image_names: Sequence[str]) -> Path:
    """Write problems in the official TSV layout, images given by file name (for tests and exports)."""
    path = Path(path)
    with path.open("w", encoding="utf-8", newline="") as handle:
        handle.write("\t".join(["index", "id", "category", "image", "question", "answer", "A", "B", "C", "D", "tool_chain"]) + "\n")
        for index, (problem, name) in enumerate(zip(problems, image_names)):
            options = (problem.choices or []) + [""] * (4 - len(problem.choices or []))
            chain = json.dumps([s["tool"] for s in problem.reference_chain])
            cells = [str(index), problem.id, problem.category, name, problem.question.replace("\n", " "), problem.answer, *options[:4], chain]
            handle.write("\t".join(cells) + "\n")
    return path
