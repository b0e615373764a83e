"""The VTC-Bench tool set: the 33 OpenCV operations of the public VTC-Bench interface plus ``sharpen``.

Every tool takes one input image by id (``"image": "img_0"``), validated parameters, and returns a
new image (stored under a new id with its lineage) and a dict of machine-readable numbers. Tools are
grouped as in the paper's Table 6: geometry, enhancement, feature extraction, drawing.

Colour convention: the image store holds RGB (or gray) pixels. A tool that changes colour space
(``colorspace``) tags its output with ``meta["colorspace"]`` ("gray", "hsv", "lab"); later tools read
that tag, so e.g. ``inrange_color(space="hsv")`` on an HSV image uses its channels as they are.
OpenCV's BGR order never leaks: conversions use OpenCV's RGB codes directly.

``tool_catalog()`` lists every tool with its JSON schema; ``call_tool(store, name, arguments)``
validates and runs one call.

Host-side limits (issue 14): the tools run on the host, so every call stays inside the episode budget
of the store it works on (``store.budget``) and the action's deadline. Arguments longer than
``tool_argument_chars`` are refused before validation; a tool that can make a larger image than its
input (resize, rotate, zoom_in, pyramid) computes the output size from its parameters and the store
refuses it (``image_pixels``, ``image_store_pixels``) before OpenCV allocates anything (other tools' outputs
are no larger than their input, and ``store.add`` checks them before it copies them); the costly
filters have work budgets (pixels x window), loops over contours check the deadline, and a tool whose
cost its parameters cannot bound (``hough_circles``) runs in a child process killed at the deadline.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

import cv2
import numpy as np
from scipy import ndimage

from mmenvs.core import ActionError, ImageNotFound, ImageStore, specs
from mmenvs.core.actions import check_argument_sizes
from mmenvs.core.budget import DEFAULT_BUDGET, DeadlineExceeded, EpisodeBudget, current_deadline
from mmenvs.core.offload import run_in_child
from mmenvs.core.specs import within_number_limit

IMAGE_ID_PATTERN = r"^img_[0-9]+$"
#: Largest side a tool may produce (keeps a hostile ``resize`` from allocating gigabytes).
MAX_SIDE = 4096
#: Largest pixel count a tool may produce.
MAX_PIXELS = 2048 * 2048
#: Work budgets of the costly filters (pixels × window²), so one call stays around a second at worst;
#: larger jobs are refused with a hint to crop or downscale first.
DENOISE_BUDGET = 1.5e8
BILATERAL_BUDGET = 1.5e8
INPAINT_BUDGET = 3e6
GRABCUT_MAX_PIXELS = 1_000_000
#: Morphology's work budget (pixels x channels x kernel² x iterations x passes): the largest allowed
#: job takes about a second; at the parameters' maxima on a 4 MP image it would take minutes.
MORPHOLOGY_BUDGET = 1e11
#: Contours examined between two deadline checks (their Python-side loop is what a noise image makes slow).
_CONTOURS_PER_CHECK = 4096
#: How many list entries (components, lines, keypoints…) a result reports at most.
MAX_ITEMS = 100


class ToolError(ActionError):
    """A tool call the tool set refuses: ``kind`` is a stable code, the message tells the agent what to fix."""


#: The schema of the input image every tool takes (``"image": "img_0"``).
IMAGE_PROPERTY = {"type": "string", "pattern": IMAGE_ID_PATTERN, "default": "img_0",
                  "description": "Id of the input image (img_0 is the problem's image)."}


@dataclass(frozen=True)
class Param(specs.Param):
    """One tool parameter: the core declaration (JSON kind, default: absent = required, bounds,
    choices) plus VTC-Bench's own kinds ``color`` (3 numbers in 0..255), ``box`` ([x, y, w, h]),
    ``point`` ([x, y]) and ``image`` (another image id), and ``odd`` for kernel sizes."""

    odd: bool = False

    def base_schema(self) -> dict[str, Any]:
        if self.kind == "color":
            return {"type": "array", "items": {"type": "number", "minimum": 0, "maximum": 255}, "minItems": 3, "maxItems": 3}
        if self.kind == "box":
            return {"type": "array", "items": {"type": "integer", "minimum": 0}, "minItems": 4, "maxItems": 4}
        if self.kind == "point":
            return {"type": "array", "items": {"type": "number"}, "minItems": 2, "maxItems": 2}
        if self.kind == "image":
            return {"type": "string", "pattern": IMAGE_ID_PATTERN}
        return super().base_schema()

    def schema_description(self) -> str:
        return self.description + (" Must be odd." if self.odd else "")


@dataclass
class ToolOutput:
    """What a tool function returns: the output pixels, its numbers, and the output's colour space."""

    image: np.ndarray
    numbers: dict[str, Any]
    colorspace: str | None = None  # None: "gray" for 2-D output, else "rgb"


@dataclass(frozen=True)
class ToolSpec:
    """A tool: name, group, description (the docstring), parameters and the function that runs it."""

    name: str
    group: str
    description: str
    params: tuple[Param, ...]
    fn: Callable[..., ToolOutput]
    #: (width, height) of the output from the input's (width, height) and the validated parameters, for
    #: tools whose output may be larger than their input (checked against the budget before running).
    output_size: Callable[[int, int, dict[str, Any]], tuple[int, int]] | None = None
    #: Runs in a child process killed at the action deadline (its cost is not bounded by its inputs).
    isolated: bool = False

    @property
    def decl(self) -> specs.FunctionDecl:
        """The tool as a core function declaration (its parameters plus the input ``image``)."""
        return specs.FunctionDecl(self.name, self.description, self.params, {"image": IMAGE_PROPERTY})

    def schema(self) -> dict[str, Any]:
        """JSON schema of the call's ``arguments`` object (``image`` plus the tool's parameters)."""
        return self.decl.parameters_schema()

    def signature(self) -> str:
        """``name(image, p1, p2=default)``: the line the text prompts list."""
        return self.decl.signature(leading=("image",))


@dataclass
class ToolCallResult:
    """One executed call: the tool, the validated parameters, input ids, the new image id and its numbers."""

    tool: str
    params: dict[str, Any]
    inputs: list[str]
    output: str
    numbers: dict[str, Any]

    def text(self) -> str:
        """One line for the agent: what was made and the numbers."""
        import json

        return f"{self.output} = {self.tool}({', '.join(self.inputs)}): {json.dumps(self.numbers, separators=(',', ':'))}"


TOOLS: dict[str, ToolSpec] = {}
GROUPS = ("geometry", "enhancement", "feature_extraction", "drawing")


def _tool(name: str, group: str, *params: Param, output_size: Callable[[int, int, dict[str, Any]], tuple[int, int]] | None = None,
          isolated: bool = False) -> Callable[[Callable[..., ToolOutput]], Callable[..., ToolOutput]]:
    def register(fn: Callable[..., ToolOutput]) -> Callable[..., ToolOutput]:
        doc = " ".join((fn.__doc__ or "").split())
        TOOLS[name] = ToolSpec(name, group, doc, tuple(params), fn, output_size, isolated)
        return fn

    return register


def tool_names() -> list[str]:
    """Every tool name, in catalog order."""
    return list(TOOLS)


def tool_specs() -> list[dict[str, Any]]:
    """Every tool as an OpenAI function-calling spec (``tools=`` of a chat request), in catalog order."""
    return [spec.decl.openai() for spec in TOOLS.values()]


def tool_catalog() -> list[dict[str, Any]]:
    """Every tool as ``{"name", "group", "description", "parameters"}`` (parameters: a JSON schema)."""
    return [{"name": s.name, "group": s.group, "description": s.description, "parameters": s.schema()} for s in TOOLS.values()]


# ---------------------------------------------------------------------------------------- validation
def validate_arguments(name: str, arguments: Mapping[str, Any], budget: EpisodeBudget | None = None) -> tuple[str, dict[str, Any]]:
    """Check a call's arguments against the tool's parameters: returns ``(input image id, params)``
    with defaults filled in, or raises ``ToolError`` naming the tool, the parameter, the value and
    what was expected. An argument over ``budget.tool_argument_chars`` is refused first
    (``BudgetExceeded``), before any of it is examined."""
    if isinstance(arguments, Mapping):
        check_argument_sizes(str(name)[:64], arguments, (budget or DEFAULT_BUDGET).tool_argument_chars)
    spec = TOOLS.get(name)
    if spec is None:
        close = [n for n in TOOLS if n.startswith(name[:3].lower())] if isinstance(name, str) and name else []
        hint = f" Did you mean {', '.join(close)}?" if close else ""
        raise ToolError("unknown_tool", f"Unknown tool {_shown(name, 80)}.{hint} Available tools: {', '.join(TOOLS)}.")
    if not isinstance(arguments, Mapping):
        raise ToolError("bad_arguments", f"{name}: arguments must be an object, got {type(arguments).__name__}.")
    known = {p.name: p for p in spec.params}
    unknown = sorted(set(arguments) - set(known) - {"image"})
    if unknown:
        raise ToolError("unknown_parameter", f"{name}: unknown parameter(s) {_shown(unknown)}; "
                        f"allowed: image, {', '.join(known) or '(none)'}.")
    image = arguments.get("image", "img_0")
    if not isinstance(image, str):
        raise ToolError("bad_parameter", f"{name}: 'image' must be an image id string like 'img_0', got {_shown(image)}.")
    params: dict[str, Any] = {}
    for param in spec.params:
        if param.name in arguments:
            params[param.name] = _check_value(name, param, arguments[param.name])
        elif param.required:
            raise ToolError("missing_parameter", f"{name}: missing required parameter {param.name!r} ({param.description}).")
        else:
            params[param.name] = param.default
    return image, params


def _check_value(tool: str, param: Param, value: Any) -> Any:
    where = f"{tool}: parameter {param.name!r}"
    if value is None:
        if param.nullable:
            return None
        raise ToolError("bad_parameter", f"{where} may not be null.")
    kind = param.kind
    if kind == "integer":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not within_number_limit(value) \
                or (isinstance(value, float) and not value.is_integer()):
            raise ToolError("bad_parameter", f"{where} must be an integer within ±2**53, got {_shown(value)}.")
        value = int(value)
        _check_bounds(where, param, value)
        if param.odd and value % 2 == 0:
            raise ToolError("bad_parameter", f"{where} must be odd, got {value} (try {value + 1}).")
        return value
    if kind == "number":
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not within_number_limit(value):
            raise ToolError("bad_parameter", f"{where} must be a finite number within ±2**53, got {_shown(value)}.")
        value = float(value)
        _check_bounds(where, param, value)
        return value
    if kind == "string":
        if not isinstance(value, str):
            raise ToolError("bad_parameter", f"{where} must be a string, got {_shown(value)}.")
        if param.choices:
            lowered = value.strip().lower()
            if lowered not in param.choices:
                raise ToolError("bad_parameter", f"{where} must be one of {', '.join(param.choices)}; got {_shown(value)}.")
            return lowered
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ToolError("bad_parameter", f"{where} must be true or false, got {_shown(value)}.")
        return value
    if kind in ("color", "box", "point"):
        size = {"color": 3, "box": 4, "point": 2}[kind]
        if not isinstance(value, (list, tuple)) or len(value) != size or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and within_number_limit(v) for v in value
        ):
            raise ToolError("bad_parameter", f"{where} must be a list of {size} numbers, got {_shown(value)}.")
        if kind == "color":
            if not all(0 <= v <= 255 for v in value):
                raise ToolError("bad_parameter", f"{where} values must lie in 0..255, got {_shown(list(value))}.")
            return [float(v) for v in value]
        if kind == "box":
            if not all(float(v).is_integer() and v >= 0 for v in value):
                raise ToolError("bad_parameter", f"{where} must be [x, y, width, height] non-negative integers, got {_shown(list(value))}.")
            return [int(v) for v in value]
        return [float(v) for v in value]
    if kind == "image":
        if not isinstance(value, str):
            raise ToolError("bad_parameter", f"{where} must be an image id string like 'img_0', got {_shown(value)}.")
        return value
    raise AssertionError(kind)  # pragma: no cover


def _shown(value: Any, limit: int = 200) -> str:
    """``repr(value)`` cut to ``limit`` characters, for error messages (an argument may be a megabyte)."""
    try:
        text = repr(value) if not isinstance(value, (list, tuple)) or len(value) <= 64 else repr(list(value[:64])) + "…"
    except ValueError:  # an int beyond sys.get_int_max_str_digits() has no decimal repr
        text = f"an integer of about {int(value.bit_length() * 0.30103)} digits" if isinstance(value, int) else type(value).__name__
    return text if len(text) <= limit else text[:limit] + "…"


def _check_bounds(where: str, param: Param, value: float) -> None:
    if param.minimum is not None and value < param.minimum or param.maximum is not None and value > param.maximum:
        raise ToolError("bad_parameter", f"{where} must lie in [{param.minimum}, {param.maximum}], got {value}.")


# ---------------------------------------------------------------------------------------- execution
def call_tool(store: ImageStore, name: str, arguments: Mapping[str, Any]) -> ToolCallResult:
    """Validate and run one call on ``store``: the output image is added with its parents and op.

    Within ``store.budget`` and the action's deadline (``current_deadline()``, else a fresh one of
    ``budget.action_timeout``): refusals are ``BudgetExceeded``/``DeadlineExceeded`` naming the limit."""
    budget = store.budget
    deadline = current_deadline() or budget.deadline(f"the tool call {str(name)[:64]}")
    deadline.check()  # a code block calling tools in a loop stops at the deadline
    image_id, params = validate_arguments(name, arguments, budget)
    spec = TOOLS[name]
    inputs = [image_id]
    try:
        record = store.record(image_id)
        extra: dict[str, np.ndarray] = {}
        for param in spec.params:
            if param.kind == "image" and params.get(param.name) is not None:
                extra[param.name] = store.get(params[param.name])
                inputs.append(params[param.name])
    except ImageNotFound as exc:
        raise ToolError("unknown_image", f"{name}: {exc}") from None
    pixels = record.array
    colorspace = record.meta.get("colorspace") or ("gray" if pixels.ndim == 2 else "rgb")
    if spec.output_size is not None:  # a tool that may grow the image: refused before it allocates the output
        height, width = pixels.shape[:2]
        store.check_new(*spec.output_size(width, height, params), f"{name}'s output")
    call_params = {**params, **extra}
    try:
        if spec.isolated:
            output = _run_isolated(spec, pixels, colorspace, call_params, deadline, budget)
        else:
            output = spec.fn(pixels, colorspace, **call_params)
    except (ToolError, DeadlineExceeded):
        raise
    except cv2.error as exc:  # OpenCV refused the input: tell the agent which call and why
        message = str(exc).strip().splitlines()[-1]
        raise ToolError("tool_failed", f"{name} failed on {image_id}: {message}") from None
    out = output.image
    if out.dtype != np.uint8:
        out = np.clip(out, 0, 255).astype(np.uint8)
    out_space = output.colorspace or ("gray" if out.ndim == 2 else "rgb")
    new_id = store.add(out, parents=inputs, op=name, meta={"tool": name, "params": dict(params), "colorspace": out_space})
    return ToolCallResult(name, dict(params), inputs, new_id, output.numbers)


def _run_isolated(spec: ToolSpec, pixels: np.ndarray, colorspace: str, params: dict[str, Any], deadline: Any,
                  budget: EpisodeBudget) -> ToolOutput:
    """``spec.fn`` in a forked child process, killed when the action deadline passes (OpenCV cannot be
    interrupted in-process) and held to ``budget.child_memory_bytes`` beyond what it inherits."""
    deadline.check()
    try:
        return run_in_child(spec.fn, pixels, colorspace, timeout=max(0.05, deadline.remaining()),
                            memory_bytes=budget.child_memory_bytes, **params)
    except TimeoutError:
        raise DeadlineExceeded(f"{spec.name} ran past the action deadline action_timeout={deadline.seconds:g} s and was stopped "
                               "(crop, resize or pyramid the image down, or use stricter parameters; raise the deadline with "
                               "the env kwarg budget={'action_timeout': ...})", seconds=deadline.seconds) from None
    except MemoryError:
        raise ToolError("too_costly", f"{spec.name} needed more than the budget child_memory_bytes={budget.child_memory_bytes:,} "
                        "allows; crop or downscale the image first.") from None


# ---------------------------------------------------------------------------------------- pixel helpers
def to_gray(image: np.ndarray, colorspace: str) -> np.ndarray:
    """One-channel intensity of ``image`` in its colour space (V of HSV, L of LAB, luma of RGB)."""
    if image.ndim == 2:
        return image
    if colorspace == "hsv":
        return np.ascontiguousarray(image[:, :, 2])
    if colorspace == "lab":
        return np.ascontiguousarray(image[:, :, 0])
    return cv2.cvtColor(image[:, :, :3], cv2.COLOR_RGB2GRAY)


def to_rgb_space(image: np.ndarray, colorspace: str) -> np.ndarray:
    """``image`` as displayable RGB (HSV and LAB converted back, gray repeated)."""
    if image.ndim == 2:
        return cv2.cvtColor(image, cv2.COLOR_GRAY2RGB)
    if colorspace == "hsv":
        return cv2.cvtColor(image, cv2.COLOR_HSV2RGB)
    if colorspace == "lab":
        return cv2.cvtColor(image, cv2.COLOR_LAB2RGB)
    return np.array(image[:, :, :3])


def to_binary(image: np.ndarray, colorspace: str) -> np.ndarray:
    """A 0/255 mask: the image itself when it is already binary, else Otsu's threshold of its intensity
    (bright = foreground; threshold with ``invert`` first for dark objects)."""
    gray = to_gray(image, colorspace)
    values = np.unique(gray[:: max(1, gray.shape[0] // 64), :: max(1, gray.shape[1] // 64)])
    if values.size <= 2 and set(values.tolist()) <= {0, 255} and _is_binary(gray):
        return gray
    _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    return mask


def _is_binary(gray: np.ndarray) -> bool:
    return bool(np.all((gray == 0) | (gray == 255)))


def _same_space(image: np.ndarray, colorspace: str) -> str | None:
    return "gray" if image.ndim == 2 else colorspace


def _check_box(tool: str, image: np.ndarray, x: int, y: int, width: int, height: int) -> None:
    h, w = image.shape[:2]
    if width < 1 or height < 1:
        raise ToolError("bad_parameter", f"{tool}: the box must have positive width and height, got {width}×{height}.")
    if x < 0 or y < 0 or x + width > w or y + height > h:
        raise ToolError("bad_parameter", f"{tool}: box x={x}, y={y}, width={width}, height={height} reaches outside the "
                        f"{w}×{h} image (need x+width ≤ {w} and y+height ≤ {h}).")


def _resolve_box(tool: str, image: np.ndarray, p: dict[str, Any]) -> tuple[int, int, int, int]:
    if p.get("box") is not None:
        if any(p.get(k) is not None for k in ("x", "y", "width", "height")):
            raise ToolError("bad_parameter", f"{tool}: give either 'box' or x/y/width/height, not both.")
        x, y, width, height = p["box"]
    else:
        missing = [k for k in ("x", "y", "width", "height") if p.get(k) is None]
        if missing:
            raise ToolError("missing_parameter", f"{tool}: give 'box' [x, y, width, height] or all of x, y, width, height "
                            f"(missing {', '.join(missing)}).")
        x, y, width, height = p["x"], p["y"], p["width"], p["height"]
    _check_box(tool, image, x, y, width, height)
    return x, y, width, height


def _check_out_size(tool: str, width: float, height: float) -> tuple[int, int]:
    w, h = int(round(width)), int(round(height))
    if w < 1 or h < 1 or w > MAX_SIDE or h > MAX_SIDE or w * h > MAX_PIXELS:
        raise ToolError("bad_parameter", f"{tool}: the output would be {w}×{h}; each side must lie in 1..{MAX_SIDE} "
                        f"and the image may hold at most {MAX_PIXELS} pixels.")
    return w, h


def _check_cost(tool: str, work: float, budget: float, what: str) -> None:
    if work > budget:
        raise ToolError("too_costly", f"{tool}: {what} is too much work ({work:.3g} > {budget:.3g}); crop, resize or pyramid "
                        "the image down first, or use a smaller window.")


def _r(value: float, digits: int = 2) -> float:
    return round(float(value), digits)


def _color_tuple(color: Sequence[float]) -> tuple[int, int, int]:
    return tuple(int(round(c)) for c in color)  # type: ignore[return-value]


_BOX_PARAMS = (
    Param("x", "integer", "Left edge of the box in pixels.", None, 0, nullable=True),
    Param("y", "integer", "Top edge of the box in pixels.", None, 0, nullable=True),
    Param("width", "integer", "Box width in pixels.", None, 1, nullable=True),
    Param("height", "integer", "Box height in pixels.", None, 1, nullable=True),
    Param("box", "box", "The box as [x, y, width, height] (alternative to x/y/width/height, e.g. a component's bbox).", None, nullable=True),
)
_INTERP = {"nearest": cv2.INTER_NEAREST, "linear": cv2.INTER_LINEAR, "area": cv2.INTER_AREA, "cubic": cv2.INTER_CUBIC}

# ======================================================================================== geometry


def _resize_size(w: int, h: int, p: dict[str, Any]) -> tuple[int, int]:
    """resize's output (width, height) from its parameters."""
    width, height, preset = p.get("width"), p.get("height"), p.get("preset")
    if preset is not None:
        if width is not None or height is not None:
            raise ToolError("bad_parameter", "resize: give either 'preset' or width/height, not both.")
        factor = 0.5 if preset == "half" else 2.0
        return _check_out_size("resize", w * factor, h * factor)
    if width is None and height is None:
        raise ToolError("missing_parameter", "resize: give 'width', 'height' or 'preset' ('half' or 'double').")
    return _check_out_size("resize", width if width is not None else w * height / h, height if height is not None else h * width / w)


@_tool("resize", "geometry",
       Param("width", "integer", "Output width in pixels (height follows the aspect ratio if not given).", None, 1, MAX_SIDE, nullable=True),
       Param("height", "integer", "Output height in pixels (width follows the aspect ratio if not given).", None, 1, MAX_SIDE, nullable=True),
       Param("preset", "string", "'half' or 'double' the size (instead of width/height).", None, choices=("half", "double"), nullable=True),
       Param("interpolation", "string", "Resampling filter.", "linear", choices=tuple(_INTERP)), output_size=_resize_size)
def resize(image: np.ndarray, cs: str, width: int | None, height: int | None, preset: str | None, interpolation: str) -> ToolOutput:
    """Resize the image to a width and/or height in pixels, or by a preset ('half', 'double').
    Returns the new width, height and scale factors."""
    h, w = image.shape[:2]
    new_w, new_h = _resize_size(w, h, {"width": width, "height": height, "preset": preset})
    out = cv2.resize(image, (new_w, new_h), interpolation=_INTERP[interpolation])
    return ToolOutput(out, {"width": new_w, "height": new_h, "scale_x": _r(new_w / w, 4), "scale_y": _r(new_h / h, 4)}, _same_space(out, cs))


def _rotate_size(w: int, h: int, p: dict[str, Any]) -> tuple[int, int]:
    """rotate's output (width, height): the expanded canvas (sides swapped for odd quarter turns)."""
    ccw = -p["angle"] if p["clockwise"] else p["angle"]
    if (ccw / 90.0).is_integer():
        return (h, w) if int(ccw / 90.0) % 2 else (w, h)
    matrix = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), ccw, 1.0)
    cos, sin = abs(matrix[0, 0]), abs(matrix[0, 1])
    return _check_out_size("rotate", h * sin + w * cos, h * cos + w * sin)


@_tool("rotate", "geometry",
       Param("angle", "number", "Rotation angle in degrees.", 90.0, -360, 360),
       Param("clockwise", "boolean", "Rotate clockwise (true) or counter-clockwise (false).", False),
       Param("fill", "color", "Colour of the corners the rotation uncovers.", [0, 0, 0]), output_size=_rotate_size)
def rotate(image: np.ndarray, cs: str, angle: float, clockwise: bool, fill: list[float]) -> ToolOutput:
    """Rotate the image about its centre by an angle in degrees; the canvas expands so nothing is cut.
    Multiples of 90° are exact. Returns the new width and height."""
    ccw = -angle if clockwise else angle
    quarter = ccw / 90.0
    if quarter.is_integer():
        turns = int(quarter) % 4
        codes = {1: cv2.ROTATE_90_COUNTERCLOCKWISE, 2: cv2.ROTATE_180, 3: cv2.ROTATE_90_CLOCKWISE}
        out = image.copy() if turns == 0 else cv2.rotate(image, codes[turns])
    else:
        h, w = image.shape[:2]
        matrix = cv2.getRotationMatrix2D((w / 2.0, h / 2.0), ccw, 1.0)
        new_w, new_h = _rotate_size(w, h, {"angle": angle, "clockwise": clockwise})
        matrix[0, 2] += new_w / 2.0 - w / 2.0
        matrix[1, 2] += new_h / 2.0 - h / 2.0
        border = _color_tuple(fill) if image.ndim == 3 else int(round(fill[0]))
        out = cv2.warpAffine(image, matrix, (new_w, new_h), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT, borderValue=border)
    return ToolOutput(out, {"angle": _r(angle), "clockwise": clockwise, "width": out.shape[1], "height": out.shape[0]}, _same_space(out, cs))


@_tool("translate", "geometry",
       Param("direction", "string", "Shift direction.", "right", choices=("left", "right", "up", "down")),
       Param("distance", "integer", "Shift in pixels.", 32, 0, MAX_SIDE))
def translate(image: np.ndarray, cs: str, direction: str, distance: int) -> ToolOutput:
    """Shift the image content left, right, up or down by a distance in pixels (uncovered area black,
    same canvas size). Returns dx and dy."""
    dx = {"left": -distance, "right": distance}.get(direction, 0)
    dy = {"up": -distance, "down": distance}.get(direction, 0)
    h, w = image.shape[:2]
    matrix = np.float32([[1, 0, dx], [0, 1, dy]])
    out = cv2.warpAffine(image, matrix, (w, h), flags=cv2.INTER_NEAREST, borderMode=cv2.BORDER_CONSTANT, borderValue=0)
    return ToolOutput(out, {"dx": dx, "dy": dy}, _same_space(out, cs))


@_tool("flip", "geometry", Param("direction", "string", "Mirror axis.", "horizontal", choices=("horizontal", "vertical", "both")))
def flip(image: np.ndarray, cs: str, direction: str) -> ToolOutput:
    """Mirror the image horizontally (left-right), vertically (up-down) or both."""
    code = {"horizontal": 1, "vertical": 0, "both": -1}[direction]
    out = cv2.flip(image, code)
    return ToolOutput(out, {"direction": direction}, _same_space(out, cs))


@_tool("crop", "geometry", *_BOX_PARAMS)
def crop(image: np.ndarray, cs: str, **p: Any) -> ToolOutput:
    """Cut out a rectangular region of interest given as x, y, width, height (or box=[x, y, w, h]);
    the box must lie inside the image. Returns the box."""
    x, y, width, height = _resolve_box("crop", image, p)
    out = np.array(image[y : y + height, x : x + width])
    return ToolOutput(out, {"box": [x, y, width, height], "width": width, "height": height}, _same_space(out, cs))


def _zoom_size(w: int, h: int, p: dict[str, Any]) -> tuple[int, int]:
    """zoom_in's output (width, height): the box's size times ``scale`` (the box itself is checked by the tool)."""
    box = p.get("box")
    width, height = (box[2], box[3]) if box is not None else (p.get("width"), p.get("height"))
    if width is None or height is None:
        return w, h  # the tool reports the missing parameter
    return _check_out_size("zoom_in", min(width, w) * p["scale"], min(height, h) * p["scale"])


@_tool("zoom_in", "geometry", *_BOX_PARAMS,
       Param("scale", "number", "Magnification factor.", 2.0, 1.0, 8.0), output_size=_zoom_size)
def zoom_in(image: np.ndarray, cs: str, scale: float, **p: Any) -> ToolOutput:
    """Crop a region (x, y, width, height or box) and enlarge it by ``scale`` with cubic interpolation
    to inspect small details. Returns the box and the output size."""
    x, y, width, height = _resolve_box("zoom_in", image, p)
    new_w, new_h = _check_out_size("zoom_in", width * scale, height * scale)
    out = cv2.resize(image[y : y + height, x : x + width], (new_w, new_h), interpolation=cv2.INTER_CUBIC)
    return ToolOutput(out, {"box": [x, y, width, height], "scale": _r(scale), "width": new_w, "height": new_h}, _same_space(out, cs))


@_tool("pyramid", "geometry",
       Param("mode", "string", "'pyr_down' halves each side (Gaussian pyramid), 'pyr_up' doubles it.", "pyr_down", choices=("pyr_down", "pyr_up")),
       Param("levels", "integer", "How many pyramid levels to apply.", 1, 1, 4),
       output_size=lambda w, h, p: _check_out_size("pyramid", w * 2 ** p["levels"], h * 2 ** p["levels"]) if p["mode"] == "pyr_up" else (w, h))
def pyramid(image: np.ndarray, cs: str, mode: str, levels: int) -> ToolOutput:
    """Gaussian image pyramid: downsample (pyr_down) or upsample (pyr_up) by 2 per level.
    Returns the new width and height."""
    out = image
    for _ in range(levels):
        h, w = out.shape[:2]
        if mode == "pyr_up":
            _check_out_size("pyramid", w * 2, h * 2)
            out = cv2.pyrUp(out)
        else:
            if min(h, w) < 2:
                raise ToolError("bad_parameter", f"pyramid: the image is {w}×{h}, too small for another pyr_down level.")
            out = cv2.pyrDown(out)
    return ToolOutput(out, {"width": out.shape[1], "height": out.shape[0]}, _same_space(out, cs))


# ======================================================================================== enhancement


@_tool("colorspace", "enhancement", Param("target", "string", "Target colour space.", "gray", choices=("gray", "hsv", "lab", "rgb")))
def colorspace(image: np.ndarray, cs: str, target: str) -> ToolOutput:
    """Convert the image to gray, HSV (OpenCV ranges: H 0-179, S and V 0-255), LAB or back to RGB.
    Returns the mean of each output channel."""
    if image.ndim == 2 and target in ("hsv", "lab"):
        image, cs = cv2.cvtColor(image, cv2.COLOR_GRAY2RGB), "rgb"
    rgb = image if cs in ("rgb", "gray") else to_rgb_space(image, cs)
    if target == "gray":
        out = to_gray(image, cs) if cs != "hsv" else cv2.cvtColor(rgb, cv2.COLOR_RGB2GRAY)
    elif target == "rgb":
        out = to_rgb_space(image, cs)
    else:
        out = cv2.cvtColor(rgb if rgb.ndim == 3 else cv2.cvtColor(rgb, cv2.COLOR_GRAY2RGB), cv2.COLOR_RGB2HSV if target == "hsv" else cv2.COLOR_RGB2LAB)
    means = [float(v) for v in cv2.mean(out)[: (1 if out.ndim == 2 else 3)]]
    return ToolOutput(out, {"colorspace": target, "channel_means": [_r(m) for m in means]}, target)


@_tool("inrange_color", "enhancement",
       Param("lower", "color", "Lower bound per channel (HSV: H 0-179, S 0-255, V 0-255; RGB/BGR: 0-255)."),
       Param("upper", "color", "Upper bound per channel. In HSV a lower H above the upper H wraps through red (e.g. 170..10)."),
       Param("space", "string", "Colour space of the bounds.", "hsv", choices=("hsv", "rgb", "bgr", "lab")))
def inrange_color(image: np.ndarray, cs: str, lower: list[float], upper: list[float], space: str) -> ToolOutput:
    """Segment the pixels whose colour lies between ``lower`` and ``upper`` in HSV, RGB, BGR or LAB;
    the output is a white-on-black mask. Returns the pixel count and the fraction of the image."""
    if image.ndim == 2:
        raise ToolError("bad_parameter", "inrange_color: the input is a one-channel image; give a colour image.")
    if space == "bgr":
        lower, upper, space = lower[::-1], upper[::-1], "rgb"
    if space == cs:
        pixels = image
    else:
        rgb = to_rgb_space(image, cs)
        pixels = rgb if space == "rgb" else cv2.cvtColor(rgb, cv2.COLOR_RGB2HSV if space == "hsv" else cv2.COLOR_RGB2LAB)
    lo, hi = np.array(lower, dtype=np.float64), np.array(upper, dtype=np.float64)
    if space == "hsv" and lo[0] > hi[0]:  # hue wraps through 0 (reds)
        mask = cv2.inRange(pixels, np.array([lo[0], lo[1], lo[2]]), np.array([180, hi[1], hi[2]]))
        mask |= cv2.inRange(pixels, np.array([0, lo[1], lo[2]]), np.array([hi[0], hi[1], hi[2]]))
    else:
        if np.any(lo > hi):
            raise ToolError("bad_parameter", f"inrange_color: lower {lower} exceeds upper {upper} in some channel.")
        mask = cv2.inRange(pixels, lo, hi)
    count = int(cv2.countNonZero(mask))
    return ToolOutput(mask, {"pixel_count": count, "fraction": _r(count / mask.size, 4)}, "gray")


@_tool("blur", "enhancement",
       Param("method", "string", "Filter.", "gaussian", choices=("average", "gaussian", "median", "bilateral")),
       Param("ksize", "integer", "Kernel size (bilateral: neighbourhood diameter).", 5, 3, 51, odd=True))
def blur(image: np.ndarray, cs: str, method: str, ksize: int) -> ToolOutput:
    """Smooth the image with an average, Gaussian, median or bilateral (edge-preserving) filter."""
    if method == "average":
        out = cv2.blur(image, (ksize, ksize))
    elif method == "gaussian":
        out = cv2.GaussianBlur(image, (ksize, ksize), 0)
    elif method == "median":
        out = cv2.medianBlur(image, ksize)
    else:
        _check_cost("blur", image.shape[0] * image.shape[1] * ksize**2, BILATERAL_BUDGET, f"a bilateral filter of size {ksize} on this image")
        out = cv2.bilateralFilter(image, ksize, 75, 75)
    return ToolOutput(out, {"method": method, "ksize": ksize}, _same_space(out, cs))


@_tool("denoise", "enhancement",
       Param("h", "number", "Filter strength: larger removes more noise and more detail.", 10.0, 1, 50),
       Param("template_window", "integer", "Template patch size.", 7, 3, 21, odd=True),
       Param("search_window", "integer", "Search window size.", 21, 3, 35, odd=True))
def denoise(image: np.ndarray, cs: str, h: float, template_window: int, search_window: int) -> ToolOutput:
    """Non-local means denoising: removes noise while keeping edges (colour images use the coloured
    variant). Returns the mean absolute change per pixel."""
    _check_cost("denoise", image.shape[0] * image.shape[1] * search_window**2, DENOISE_BUDGET, f"search_window {search_window} on this image")
    if image.ndim == 2:
        out = cv2.fastNlMeansDenoising(image, None, h, template_window, search_window)
    else:
        out = cv2.fastNlMeansDenoisingColored(np.ascontiguousarray(image[:, :, :3]), None, h, h, template_window, search_window)
    change = float(np.mean(cv2.absdiff(out, image[:, :, :3] if image.ndim == 3 else image)))
    return ToolOutput(out, {"h": _r(h), "mean_abs_change": _r(change)}, _same_space(out, cs))


@_tool("threshold", "enhancement",
       Param("method", "string", "Thresholding rule.", "binary", choices=("binary", "otsu", "adaptive_mean", "adaptive_gaussian")),
       Param("threshold_value", "number", "Threshold for method 'binary'.", 127.0, 0, 255),
       Param("invert", "boolean", "Make dark pixels the white foreground.", False),
       Param("block_size", "integer", "Neighbourhood size of the adaptive methods.", 11, 3, 255, odd=True),
       Param("c", "number", "Constant subtracted from the adaptive mean.", 2.0, -255, 255))
def threshold(image: np.ndarray, cs: str, method: str, threshold_value: float, invert: bool, block_size: int, c: float) -> ToolOutput:
    """Binarise the image (converted to gray): a fixed threshold, Otsu's automatic threshold, or an
    adaptive (mean / Gaussian) threshold; ``invert`` makes dark pixels white. Returns the threshold
    used and the white fraction."""
    gray = to_gray(image, cs)
    kind = cv2.THRESH_BINARY_INV if invert else cv2.THRESH_BINARY
    if method == "binary":
        used, out = cv2.threshold(gray, threshold_value, 255, kind)
    elif method == "otsu":
        used, out = cv2.threshold(gray, 0, 255, kind + cv2.THRESH_OTSU)
    else:
        adaptive = cv2.ADAPTIVE_THRESH_MEAN_C if method == "adaptive_mean" else cv2.ADAPTIVE_THRESH_GAUSSIAN_C
        out, used = cv2.adaptiveThreshold(gray, 255, adaptive, kind, block_size, c), None
    numbers = {"method": method, "threshold": None if used is None else _r(used), "foreground_fraction": _r(cv2.countNonZero(out) / out.size, 4)}
    return ToolOutput(out, numbers, "gray")


_SHAPES = {"rect": cv2.MORPH_RECT, "ellipse": cv2.MORPH_ELLIPSE, "cross": cv2.MORPH_CROSS}


@_tool("morphology", "enhancement",
       Param("operation", "string", "Morphological operation.", "open", choices=("erode", "dilate", "open", "close", "gradient", "tophat", "blackhat")),
       Param("kernel_size", "integer", "Structuring element size.", 3, 1, 51, odd=True),
       Param("iterations", "integer", "Repetitions.", 1, 1, 20),
       Param("shape", "string", "Structuring element shape.", "rect", choices=tuple(_SHAPES)))
def morphology(image: np.ndarray, cs: str, operation: str, kernel_size: int, iterations: int, shape: str) -> ToolOutput:
    """Erode, dilate, open (erode then dilate: removes specks, separates touching blobs), close (fills
    gaps) or take the gradient/top-hat/black-hat, with a rect, ellipse or cross kernel."""
    passes = {"erode": 1, "dilate": 1, "open": 2, "close": 2}.get(operation, 3)  # gradient/tophat/blackhat: 2 passes and a subtraction
    channels = 1 if image.ndim == 2 else image.shape[2]
    _check_cost("morphology", image.shape[0] * image.shape[1] * channels * kernel_size**2 * iterations * passes, MORPHOLOGY_BUDGET,
                f"a {kernel_size}x{kernel_size} kernel with {iterations} iteration(s) on this image")
    kernel = cv2.getStructuringElement(_SHAPES[shape], (kernel_size, kernel_size))
    ops = {"erode": cv2.MORPH_ERODE, "dilate": cv2.MORPH_DILATE, "open": cv2.MORPH_OPEN, "close": cv2.MORPH_CLOSE,
           "gradient": cv2.MORPH_GRADIENT, "tophat": cv2.MORPH_TOPHAT, "blackhat": cv2.MORPH_BLACKHAT}
    out = cv2.morphologyEx(image, ops[operation], kernel, iterations=iterations)
    numbers: dict[str, Any] = {"operation": operation}
    if out.ndim == 2:
        numbers["foreground_fraction"] = _r(cv2.countNonZero(out) / out.size, 4)
    return ToolOutput(out, numbers, _same_space(out, cs))


@_tool("histogram", "enhancement",
       Param("method", "string", "'equalize' (global) or 'clahe' (contrast-limited adaptive).", "equalize", choices=("equalize", "clahe")),
       Param("clip_limit", "number", "CLAHE contrast limit.", 2.0, 0.1, 40),
       Param("tile_grid", "integer", "CLAHE tiles per side.", 8, 1, 64))
def histogram(image: np.ndarray, cs: str, method: str, clip_limit: float, tile_grid: int) -> ToolOutput:
    """Stretch contrast by histogram equalisation or CLAHE (colour images: on the lightness channel,
    hues kept). Returns the mean intensity before and after."""
    def enhance(channel: np.ndarray) -> np.ndarray:
        if method == "equalize":
            return cv2.equalizeHist(channel)
        return cv2.createCLAHE(clipLimit=clip_limit, tileGridSize=(tile_grid, tile_grid)).apply(channel)

    before = cv2.mean(to_gray(image, cs))[0]
    if image.ndim == 2:
        out, space = enhance(image), "gray"
    else:
        ycc = cv2.cvtColor(to_rgb_space(image, cs), cv2.COLOR_RGB2YCrCb)
        ycc[:, :, 0] = enhance(np.ascontiguousarray(ycc[:, :, 0]))
        out, space = cv2.cvtColor(ycc, cv2.COLOR_YCrCb2RGB), "rgb"
    return ToolOutput(out, {"mean_before": _r(before), "mean_after": _r(cv2.mean(to_gray(out, space))[0])}, space)


@_tool("convertscaleabs", "enhancement",
       Param("alpha", "number", "Contrast gain: out = |alpha·in + beta|, saturated to 0..255.", 1.0, 0.0, 20.0),
       Param("beta", "number", "Brightness offset.", 0.0, -512, 512))
def convertscaleabs(image: np.ndarray, cs: str, alpha: float, beta: float) -> ToolOutput:
    """Adjust brightness and contrast: out = saturate(|alpha·pixel + beta|). Brighten a dark image with
    alpha > 1; tame an overexposed one with alpha > 1 and a negative beta. Returns the mean before and after."""
    out = cv2.convertScaleAbs(image, alpha=alpha, beta=beta)
    def mean(a: np.ndarray) -> float:
        channels = cv2.mean(a)[: 1 if a.ndim == 2 else a.shape[2]]
        return sum(channels) / len(channels)

    return ToolOutput(out, {"mean_before": _r(mean(image)), "mean_after": _r(mean(out))}, _same_space(out, cs))


@_tool("inpaint", "enhancement",
       Param("method", "string", "Inpainting algorithm.", "telea", choices=("telea", "ns")),
       Param("radius", "number", "Neighbourhood radius in pixels.", 3.0, 1, 25),
       Param("mask", "image", "Id of a mask image (white = repair). Without it, near-white pixels are repaired.", None, nullable=True),
       Param("mask_threshold", "integer", "Without a mask: pixels at least this bright (all channels) are repaired.", 240, 1, 255))
def inpaint(image: np.ndarray, cs: str, method: str, radius: float, mask: np.ndarray | None, mask_threshold: int) -> ToolOutput:
    """Restore damaged areas (scratches, glare, occluding marks) from their surroundings. The damage is
    given as a mask image id, or taken as the near-white pixels. Returns the repaired pixel count."""
    if mask is None:
        holes = (to_gray(image, cs) >= mask_threshold) if image.ndim == 2 else np.all(image[:, :, :3] >= mask_threshold, axis=2)
        repair = holes.astype(np.uint8) * 255
    else:
        repair = to_gray(mask, "rgb") if mask.ndim == 3 else mask
        if repair.shape[:2] != image.shape[:2]:
            raise ToolError("bad_parameter", f"inpaint: the mask is {repair.shape[1]}×{repair.shape[0]} but the image is "
                            f"{image.shape[1]}×{image.shape[0]}; they must match.")
        repair = np.where(repair > 127, 255, 0).astype(np.uint8)
    _check_cost("inpaint", cv2.countNonZero(repair) * radius**2, INPAINT_BUDGET, f"repairing {cv2.countNonZero(repair)} pixels with radius {radius:g}")
    flag = cv2.INPAINT_TELEA if method == "telea" else cv2.INPAINT_NS
    src = image if image.ndim == 2 else np.ascontiguousarray(image[:, :, :3])
    out = cv2.inpaint(src, repair, radius, flag)
    return ToolOutput(out, {"repaired_pixels": int(cv2.countNonZero(repair))}, _same_space(out, cs))


@_tool("sharpen", "enhancement",
       Param("strength", "number", "Unsharp-mask amount: out = in + strength·(in − blurred).", 1.0, 0.0, 10.0),
       Param("ksize", "integer", "Gaussian kernel size of the blurred copy.", 5, 3, 51, odd=True))
def sharpen(image: np.ndarray, cs: str, strength: float, ksize: int) -> ToolOutput:
    """Sharpen edges with an unsharp mask: out = in + strength·(in − GaussianBlur(in))."""
    blurred = cv2.GaussianBlur(image, (ksize, ksize), 0)
    out = cv2.addWeighted(image, 1.0 + strength, blurred, -strength, 0)
    return ToolOutput(out, {"strength": _r(strength), "ksize": ksize}, _same_space(out, cs))


# ======================================================================================== feature extraction
_CANNY_LEVELS = {"low": (50, 100), "medium": (100, 200), "high": (150, 250)}


@_tool("canny", "feature_extraction",
       Param("level", "string", "Preset thresholds: low 50/100, medium 100/200, high 150/250.", "medium", choices=tuple(_CANNY_LEVELS)),
       Param("low_threshold", "number", "Explicit lower hysteresis threshold (overrides level).", None, 0, 1000, nullable=True),
       Param("high_threshold", "number", "Explicit upper hysteresis threshold (overrides level).", None, 0, 1000, nullable=True))
def canny(image: np.ndarray, cs: str, level: str, low_threshold: float | None, high_threshold: float | None) -> ToolOutput:
    """Detect edges with the Canny detector on the gray image. Returns the thresholds and the edge pixel count."""
    low, high = _CANNY_LEVELS[level]
    low = low if low_threshold is None else low_threshold
    high = high if high_threshold is None else high_threshold
    if low > high:
        raise ToolError("bad_parameter", f"canny: low_threshold {low} exceeds high_threshold {high}.")
    edges = cv2.Canny(to_gray(image, cs), low, high)
    count = int(cv2.countNonZero(edges))
    return ToolOutput(edges, {"low": _r(low), "high": _r(high), "edge_pixels": count, "edge_fraction": _r(count / edges.size, 4)}, "gray")


@_tool("gradients", "feature_extraction",
       Param("method", "string", "Derivative operator.", "sobel_x", choices=("sobel_x", "sobel_y", "laplacian", "magnitude")),
       Param("ksize", "integer", "Aperture size.", 3, 1, 31, odd=True))
def gradients(image: np.ndarray, cs: str, method: str, ksize: int) -> ToolOutput:
    """Intensity gradients of the gray image: Sobel along x or y, their magnitude, or the Laplacian;
    the absolute response is scaled to 0..255. Returns the mean and maximum raw response."""
    gray = to_gray(image, cs)
    if method == "laplacian":
        raw = np.abs(cv2.Laplacian(gray, cv2.CV_32F, ksize=ksize))
    elif method == "magnitude":
        raw = cv2.magnitude(cv2.Sobel(gray, cv2.CV_32F, 1, 0, ksize=ksize), cv2.Sobel(gray, cv2.CV_32F, 0, 1, ksize=ksize))
    else:
        dx, dy = (1, 0) if method == "sobel_x" else (0, 1)
        raw = np.abs(cv2.Sobel(gray, cv2.CV_32F, dx, dy, ksize=ksize))
    peak = float(raw.max())
    out = cv2.convertScaleAbs(raw, alpha=255.0 / peak if peak > 255 else 1.0)
    return ToolOutput(out, {"method": method, "mean": _r(float(raw.mean())), "max": _r(peak)}, "gray")


def _component_list(stats: np.ndarray, centroids: np.ndarray, min_area: int) -> tuple[int, list[dict[str, Any]]]:
    """How many labels (background excluded) reach ``min_area``, and the largest ``MAX_ITEMS`` as dicts."""
    areas = stats[1:, cv2.CC_STAT_AREA]
    keep = np.nonzero(areas >= min_area)[0] + 1
    # Largest first; ties by top, then left, so the order is reproducible.
    order = keep[np.lexsort((stats[keep, cv2.CC_STAT_LEFT], stats[keep, cv2.CC_STAT_TOP], -stats[keep, cv2.CC_STAT_AREA]))]
    items = []
    for label in order[:MAX_ITEMS].tolist():
        x, y, w, h, area = (int(v) for v in stats[label, :5])
        items.append({"label": label, "area": area, "bbox": [x, y, w, h], "centroid": [_r(centroids[label][0], 1), _r(centroids[label][1], 1)]})
    return int(keep.size), items


def _label_colors(count: int) -> np.ndarray:
    hues = (np.arange(count) * 37) % 180
    hsv = np.stack([hues, np.full(count, 200), np.full(count, 255)], axis=1).astype(np.uint8)[None]
    return cv2.cvtColor(hsv, cv2.COLOR_HSV2RGB)[0]


_LABEL_LUT = _label_colors(256).reshape(256, 1, 3)
_LABEL_LUT[0] = 0


def _paint_labels(labels: np.ndarray) -> np.ndarray:
    """An RGB picture of a label image: 0 black, every other label a colour (colours repeat after 255)."""
    small = labels.astype(np.uint8) if int(labels.max()) < 256 else np.where(labels > 0, (labels - 1) % 255 + 1, 0).astype(np.uint8)
    return cv2.LUT(cv2.merge([small, small, small]), _LABEL_LUT.reshape(1, 256, 3))


@_tool("watershed", "feature_extraction",
       Param("marker_ratio", "number", "Seeds are where the distance to the background exceeds this share of the maximum distance.", 0.5, 0.05, 0.95),
       Param("min_area", "integer", "Ignore segments smaller than this (pixels).", 20, 0, 10_000_000))
def watershed(image: np.ndarray, cs: str, marker_ratio: float, min_area: int) -> ToolOutput:
    """Split touching objects: the foreground (white of a binary image, else Otsu) is flooded from
    seeds at the peaks of its distance transform. Returns the segment count and each segment's area,
    bbox and centroid (largest first)."""
    mask = to_binary(image, cs)
    dist = cv2.distanceTransform(mask, cv2.DIST_L2, 5)
    peak = float(dist.max())
    if peak <= 0:
        return ToolOutput(np.zeros((*mask.shape, 3), np.uint8), {"count": 0, "segments": []}, "rgb")
    seeds = np.uint8(dist > marker_ratio * peak) * 255
    count, markers = cv2.connectedComponents(seeds)
    markers = markers + 1
    unknown = cv2.subtract(cv2.dilate(mask, np.ones((3, 3), np.uint8), iterations=2), seeds)
    markers[unknown == 255] = 0
    canvas = to_rgb_space(image, cs) if image.ndim == 3 else cv2.cvtColor(mask, cv2.COLOR_GRAY2RGB)
    markers = cv2.watershed(np.ascontiguousarray(canvas), markers.astype(np.int32))
    # Segment statistics by label (labels ≥ 2 are seeds; 1 is background, -1 the ridges), restricted to the foreground.
    regions = np.where((markers > 1) & (mask > 0), markers - 1, 0).astype(np.int32)
    stats = np.zeros((count, 5), np.int32)
    centroids = np.zeros((count, 2), np.float64)
    for label, box in enumerate(ndimage.find_objects(regions), start=1):
        if box is None or label >= count:
            continue
        moments = cv2.moments((regions[box] == label).astype(np.uint8), binaryImage=True)
        stats[label] = (box[1].start, box[0].start, box[1].stop - box[1].start, box[0].stop - box[0].start, int(moments["m00"]))
        centroids[label] = (box[1].start + moments["m10"] / moments["m00"], box[0].start + moments["m01"] / moments["m00"])
    kept, segments = _component_list(stats, centroids, max(1, min_area))
    out = _paint_labels(np.maximum(markers - 1, 0))  # background (1) and unlabelled (0) stay black
    out[markers == -1] = (255, 255, 255)
    return ToolOutput(out, {"count": kept, "segments": segments}, "rgb")


@_tool("grabcut", "feature_extraction",
       Param("mode", "string", "Initial rectangle: 'center' (middle 60%), 'tight' (5% margin), 'loose' (2% margin), 'rect' (use box).", "center",
             choices=("center", "tight", "loose", "rect")),
       Param("box", "box", "The rectangle [x, y, width, height] for mode 'rect'.", None, nullable=True),
       Param("iterations", "integer", "GrabCut iterations.", 3, 1, 10))
def grabcut(image: np.ndarray, cs: str, mode: str, box: list[int] | None, iterations: int) -> ToolOutput:
    """Extract the foreground object inside a rectangle with GrabCut (graph cuts on colour models);
    the background is blacked out. Returns the foreground pixel count, fraction and bbox."""
    rgb = np.ascontiguousarray(to_rgb_space(image, cs))
    h, w = rgb.shape[:2]
    if mode == "rect":
        if box is None:
            raise ToolError("missing_parameter", "grabcut: mode 'rect' needs box=[x, y, width, height].")
        _check_box("grabcut", rgb, *box)
        rect = tuple(box)
    else:
        margin = {"center": 0.2, "tight": 0.05, "loose": 0.02}[mode]
        rect = (int(w * margin), int(h * margin), max(1, int(w * (1 - 2 * margin))), max(1, int(h * (1 - 2 * margin))))
    if w < 3 or h < 3:
        raise ToolError("bad_parameter", f"grabcut: the image is {w}×{h}; it needs at least 3×3 pixels.")
    _check_cost("grabcut", w * h, GRABCUT_MAX_PIXELS, f"a {w}×{h} image")
    mask = np.zeros((h, w), np.uint8)
    bgd, fgd = np.zeros((1, 65), np.float64), np.zeros((1, 65), np.float64)
    cv2.grabCut(cv2.cvtColor(rgb, cv2.COLOR_RGB2BGR), mask, rect, bgd, fgd, iterations, cv2.GC_INIT_WITH_RECT)
    fg = (mask == cv2.GC_FGD) | (mask == cv2.GC_PR_FGD)
    out = rgb * fg[:, :, None].astype(np.uint8)
    count = int(fg.sum())
    bbox = None
    if count:
        ys, xs = np.nonzero(fg)
        bbox = [int(xs.min()), int(ys.min()), int(xs.max() - xs.min() + 1), int(ys.max() - ys.min() + 1)]
    return ToolOutput(out, {"foreground_pixels": count, "fraction": _r(count / fg.size, 4), "bbox": bbox, "rect": list(rect)}, "rgb")


@_tool("floodfill", "feature_extraction",
       Param("x", "integer", "Seed column.", minimum=0), Param("y", "integer", "Seed row.", minimum=0),
       Param("lo_diff", "number", "Largest step down in brightness/colour to a neighbour that still fills.", 10.0, 0, 255),
       Param("up_diff", "number", "Largest step up to a neighbour that still fills.", 10.0, 0, 255),
       Param("color", "color", "Fill colour (RGB).", [255, 0, 0]))
def floodfill(image: np.ndarray, cs: str, x: int, y: int, lo_diff: float, up_diff: float, color: list[float]) -> ToolOutput:
    """Fill the connected region of similar colour around the seed (x, y) with a colour. Returns the
    filled area and its bbox."""
    h, w = image.shape[:2]
    if x >= w or y >= h:
        raise ToolError("bad_parameter", f"floodfill: seed ({x}, {y}) lies outside the {w}×{h} image.")
    out = np.array(image) if image.ndim == 2 else np.array(to_rgb_space(image, cs))
    mask = np.zeros((h + 2, w + 2), np.uint8)
    fill = int(round(np.mean(color))) if out.ndim == 2 else _color_tuple(color)
    diff = (lo_diff,) * (1 if out.ndim == 2 else 3)
    area, _, _, rect = cv2.floodFill(out, mask, (x, y), fill, diff, (up_diff,) * len(diff), 4)
    return ToolOutput(out, {"area": int(area), "bbox": [int(v) for v in rect], "seed": [x, y]}, "gray" if out.ndim == 2 else "rgb")


@_tool("connected_components", "feature_extraction",
       Param("method", "string", "How a non-binary input is binarised first.", "otsu", choices=("otsu", "binary")),
       Param("threshold_value", "number", "Threshold for method 'binary'.", 127.0, 0, 255),
       Param("invert", "boolean", "Count dark objects on a bright background.", False),
       Param("connectivity", "integer", "Pixel neighbourhood: 4 or 8.", 8, 4, 8),
       Param("min_area", "integer", "Ignore components smaller than this (pixels).", 0, 0, 10_000_000))
def connected_components(image: np.ndarray, cs: str, method: str, threshold_value: float, invert: bool, connectivity: int, min_area: int) -> ToolOutput:
    """Label the connected white regions (a binary input is used as is; otherwise it is thresholded by
    Otsu or a fixed value). Returns the count and, largest first, each component's area, bbox
    [x, y, w, h] and centroid [x, y]."""
    if connectivity not in (4, 8):
        raise ToolError("bad_parameter", f"connected_components: parameter 'connectivity' must be 4 or 8, got {connectivity}.")
    gray = to_gray(image, cs)
    if _is_binary(gray):
        mask = gray
    elif method == "otsu":
        _, mask = cv2.threshold(gray, 0, 255, cv2.THRESH_BINARY + cv2.THRESH_OTSU)
    else:
        _, mask = cv2.threshold(gray, threshold_value, 255, cv2.THRESH_BINARY)
    if invert:
        mask = cv2.bitwise_not(mask)
    count, labels, stats, centroids = cv2.connectedComponentsWithStats(mask, connectivity=connectivity)
    kept, items = _component_list(stats, centroids, min_area)
    return ToolOutput(_paint_labels(labels), {"count": kept, "components": items}, "rgb")


@_tool("features", "feature_extraction",
       Param("method", "string", "Detector.", "orb", choices=("harris", "shi_tomasi", "sift", "orb", "fast")),
       Param("max_features", "integer", "Most keypoints to keep (strongest first).", 500, 1, 5000))
def features(image: np.ndarray, cs: str, method: str, max_features: int) -> ToolOutput:
    """Detect keypoints/corners with Harris, Shi-Tomasi, SIFT, ORB or FAST and draw them. Returns the
    count and the strongest keypoints' coordinates."""
    gray = to_gray(image, cs)
    points: list[tuple[float, float, float]] = []  # x, y, response
    if method in ("harris", "shi_tomasi"):
        corners = cv2.goodFeaturesToTrack(gray, max_features, 0.01, 5, useHarrisDetector=method == "harris", k=0.04)
        if corners is not None:
            points = [(float(c[0][0]), float(c[0][1]), 0.0) for c in corners]
    else:
        detector = {"sift": lambda: cv2.SIFT_create(nfeatures=max_features), "orb": lambda: cv2.ORB_create(nfeatures=max_features),
                    "fast": cv2.FastFeatureDetector_create}[method]()
        keypoints = sorted(detector.detect(gray, None), key=lambda k: (-k.response, k.pt[1], k.pt[0]))[:max_features]
        points = [(float(k.pt[0]), float(k.pt[1]), float(k.response)) for k in keypoints]
    out = to_rgb_space(image, cs)
    for px, py, _ in points:
        cv2.circle(out, (int(round(px)), int(round(py))), 3, (0, 255, 0), 1, cv2.LINE_AA)
    listed = [[_r(px, 1), _r(py, 1)] for px, py, _ in points[:MAX_ITEMS]]
    return ToolOutput(out, {"method": method, "count": len(points), "keypoints": listed}, "rgb")


def _edges_for_hough(image: np.ndarray, cs: str) -> np.ndarray:
    gray = to_gray(image, cs)
    return gray if _is_binary(gray) else cv2.Canny(gray, 50, 150)


@_tool("hough_lines", "feature_extraction",
       Param("threshold", "integer", "Accumulator votes a line needs.", 80, 1, 5000),
       Param("min_line_length", "number", "Shortest segment to report (pixels).", 50.0, 0, 100_000),
       Param("max_line_gap", "number", "Largest gap bridged within one segment (pixels).", 10.0, 0, 100_000))
def hough_lines(image: np.ndarray, cs: str, threshold: int, min_line_length: float, max_line_gap: float) -> ToolOutput:
    """Detect straight segments with the probabilistic Hough transform (on a binary input as is, else on
    its Canny edges) and draw them. Returns segments [x1, y1, x2, y2] with length and angle (degrees,
    0 = horizontal, counter-clockwise positive with y up), longest first."""
    edges = _edges_for_hough(image, cs)
    found = cv2.HoughLinesP(edges, 1, np.pi / 180, threshold, minLineLength=min_line_length, maxLineGap=max_line_gap)
    lines = []
    for x1, y1, x2, y2 in ([] if found is None else found.reshape(-1, 4).tolist()):
        length = math.hypot(x2 - x1, y2 - y1)
        angle = math.degrees(math.atan2(-(y2 - y1), x2 - x1)) % 180.0
        lines.append({"x1": x1, "y1": y1, "x2": x2, "y2": y2, "length": _r(length), "angle": _r(angle)})
    lines.sort(key=lambda d: (-d["length"], d["y1"], d["x1"]))
    out = to_rgb_space(image, cs)
    for d in lines[:MAX_ITEMS]:
        cv2.line(out, (d["x1"], d["y1"]), (d["x2"], d["y2"]), (255, 0, 0), 2, cv2.LINE_AA)
    return ToolOutput(out, {"count": len(lines), "lines": lines[:MAX_ITEMS]}, "rgb")


@_tool("hough_circles", "feature_extraction",
       Param("dp", "number", "Inverse accumulator resolution.", 1.2, 1.0, 4.0),
       Param("min_dist", "number", "Smallest distance between circle centres.", 50.0, 1, 100_000),
       Param("param1", "number", "Upper Canny threshold.", 100.0, 1, 1000),
       Param("param2", "number", "Accumulator threshold: lower finds more (and falser) circles.", 50.0, 1, 1000),
       Param("min_radius", "integer", "Smallest radius.", 10, 0, 100_000),
       Param("max_radius", "integer", "Largest radius (0: no limit).", 0, 0, 100_000), isolated=True)
def hough_circles(image: np.ndarray, cs: str, dp: float, min_dist: float, param1: float, param2: float, min_radius: int, max_radius: int) -> ToolOutput:
    """Detect circles with the Hough gradient method on the gray image and draw them. Returns circles
    {x, y, r}, strongest first."""
    gray = to_gray(image, cs)
    found = cv2.HoughCircles(gray, cv2.HOUGH_GRADIENT, dp, min_dist, param1=param1, param2=param2, minRadius=min_radius, maxRadius=max_radius)
    circles = [] if found is None else [{"x": _r(c[0], 1), "y": _r(c[1], 1), "r": _r(c[2], 1)} for c in found.reshape(-1, found.shape[-1])[:MAX_ITEMS]]
    out = to_rgb_space(image, cs)
    for c in circles:
        cv2.circle(out, (int(round(c["x"])), int(round(c["y"]))), int(round(c["r"])), (0, 255, 0), 2, cv2.LINE_AA)
    return ToolOutput(out, {"count": len(circles), "circles": circles}, "rgb")


@_tool("template_match", "feature_extraction",
       Param("template", "image", "Id of the template image to look for.", None, nullable=True),
       Param("template_box", "box", "Or: a region [x, y, width, height] of the input image to use as the template.", None, nullable=True),
       Param("method", "string", "Similarity measure.", "ccoeff_normed", choices=("ccoeff_normed", "ccorr_normed", "sqdiff_normed")))
def template_match(image: np.ndarray, cs: str, template: np.ndarray | None, template_box: list[int] | None, method: str) -> ToolOutput:
    """Find where a template (another image id, or a box of this image) best matches and draw the box.
    Returns the best match's box and score."""
    if (template is None) == (template_box is None):
        raise ToolError("bad_parameter", "template_match: give exactly one of 'template' (an image id) or 'template_box'.")
    gray = to_gray(image, cs)
    if template_box is not None:
        _check_box("template_match", gray, *template_box)
        x, y, w, h = template_box
        patch = gray[y : y + h, x : x + w]
    else:
        patch = to_gray(template, "rgb")  # type: ignore[arg-type]
    if patch.shape[0] > gray.shape[0] or patch.shape[1] > gray.shape[1]:
        raise ToolError("bad_parameter", f"template_match: the template ({patch.shape[1]}×{patch.shape[0]}) is larger than the image "
                        f"({gray.shape[1]}×{gray.shape[0]}).")
    codes = {"ccoeff_normed": cv2.TM_CCOEFF_NORMED, "ccorr_normed": cv2.TM_CCORR_NORMED, "sqdiff_normed": cv2.TM_SQDIFF_NORMED}
    scores = cv2.matchTemplate(gray, patch, codes[method])
    low, high, low_at, high_at = cv2.minMaxLoc(scores)
    best, score = (low_at, low) if method == "sqdiff_normed" else (high_at, high)
    th, tw = patch.shape[:2]
    out = to_rgb_space(image, cs)
    cv2.rectangle(out, best, (best[0] + tw - 1, best[1] + th - 1), (255, 0, 0), 2)
    return ToolOutput(out, {"box": [int(best[0]), int(best[1]), int(tw), int(th)], "score": _r(score, 4),
                            "center": [_r(best[0] + tw / 2, 1), _r(best[1] + th / 2, 1)]}, "rgb")


@_tool("dft", "feature_extraction", Param("peaks", "integer", "How many strongest non-DC frequency peaks to report.", 5, 0, 50))
def dft(image: np.ndarray, cs: str, peaks: int) -> ToolOutput:
    """Discrete Fourier transform of the gray image: the output is the centred log-magnitude spectrum.
    Returns the strongest non-DC peaks as offsets (u, v) from the centre in cycles per image."""
    gray = np.float32(to_gray(image, cs))
    spectrum = cv2.dft(gray, flags=cv2.DFT_COMPLEX_OUTPUT)
    magnitude = np.fft.fftshift(cv2.magnitude(spectrum[:, :, 0], spectrum[:, :, 1]))
    logmag = np.log1p(magnitude)
    out = cv2.normalize(logmag, None, 0, 255, cv2.NORM_MINMAX).astype(np.uint8)
    h, w = magnitude.shape
    cy, cx = h // 2, w // 2
    # Half-plane only (a real image's spectrum is symmetric, so each frequency is reported once), DC excluded.
    half = magnitude.copy()
    half[:cy, :] = 0
    half[cy, : cx + 1] = 0
    flat = half.ravel()
    top = np.argpartition(flat, -peaks)[-peaks:] if 0 < peaks < flat.size else np.arange(flat.size if peaks else 0)
    found = []
    for index in sorted(top.tolist(), key=lambda i: (-flat[i], i)):
        if flat[index] <= 0:
            break
        v, u = divmod(int(index), w)
        found.append({"u": u - cx, "v": v - cy, "magnitude": _r(float(magnitude[v, u]), 1)})
    return ToolOutput(out, {"dc": _r(float(magnitude[cy, cx]), 1), "peaks": found}, "gray")


# ======================================================================================== drawing / shape measurement
_RETRIEVAL = {"external": cv2.RETR_EXTERNAL, "list": cv2.RETR_LIST}


def _find_contours(image: np.ndarray, cs: str, mode: str, min_area: float) -> list[np.ndarray]:
    mask = to_binary(image, cs)
    contours, _ = cv2.findContours(mask, _RETRIEVAL[mode], cv2.CHAIN_APPROX_SIMPLE)
    deadline = current_deadline()
    keyed = []
    for index, c in enumerate(contours):  # a noise image has hundreds of thousands: the deadline is checked as they go
        if deadline is not None and index % _CONTOURS_PER_CHECK == 0:
            deadline.check()
        area = cv2.contourArea(c)
        if area >= min_area:
            keyed.append(((-area, int(c[:, 0, 1].min()), int(c[:, 0, 0].min())), index))
    # Largest first; ties broken by position so the order is reproducible.
    keyed.sort()
    return [contours[index] for _, index in keyed]


def _contour_facts(index: int, c: np.ndarray) -> dict[str, Any]:
    m = cv2.moments(c)
    cx, cy = (m["m10"] / m["m00"], m["m01"] / m["m00"]) if m["m00"] else (float(c[:, 0, 0].mean()), float(c[:, 0, 1].mean()))
    return {"index": index, "area": _r(cv2.contourArea(c), 1), "perimeter": _r(cv2.arcLength(c, True), 1),
            "bbox": [int(v) for v in cv2.boundingRect(c)], "centroid": [_r(cx, 1), _r(cy, 1)]}


_CONTOUR_PARAMS = (
    Param("mode", "string", "'external' (outer outlines only) or 'list' (all outlines, holes too).", "external", choices=tuple(_RETRIEVAL)),
    Param("min_area", "number", "Ignore contours smaller than this (pixels).", 0.0, 0, 1e9),
)


def _pick(tool: str, contours: list[np.ndarray], index: int) -> np.ndarray:
    if not contours:
        raise ToolError("no_contour", f"{tool}: no contours found (is the foreground white? threshold with invert first).")
    if index >= len(contours):
        raise ToolError("bad_parameter", f"{tool}: contour index {index} out of range; {len(contours)} contours found (0 = largest).")
    return contours[index]


@_tool("contours", "drawing", *_CONTOUR_PARAMS,
       Param("thickness", "integer", "Outline thickness when drawing.", 2, 1, 20))
def contours(image: np.ndarray, cs: str, mode: str, min_area: float, thickness: int) -> ToolOutput:
    """Find the outlines of the white regions (a binary input as is, else Otsu) and draw them on the
    image. Returns the count and each contour's index, area, perimeter, bbox and centroid (largest first)."""
    found = _find_contours(image, cs, mode, min_area)
    out = to_rgb_space(image, cs)
    cv2.drawContours(out, found, -1, (0, 255, 0), thickness)
    return ToolOutput(out, {"count": len(found), "contours": [_contour_facts(i, c) for i, c in enumerate(found[:MAX_ITEMS])]}, "rgb")


@_tool("contour_area", "drawing", *_CONTOUR_PARAMS, Param("index", "integer", "Which contour (0 = largest).", 0, 0, 100_000))
def contour_area(image: np.ndarray, cs: str, mode: str, min_area: float, index: int) -> ToolOutput:
    """Area in pixels of one contour (0 = largest) of the white regions, drawn filled. Also returns
    all contours' areas."""
    found = _find_contours(image, cs, mode, min_area)
    chosen = _pick("contour_area", found, index)
    out = to_rgb_space(image, cs)
    cv2.drawContours(out, [chosen], -1, (255, 0, 0), cv2.FILLED)
    return ToolOutput(out, {"index": index, "area": _r(cv2.contourArea(chosen), 1), "count": len(found),
                            "areas": [_r(cv2.contourArea(c), 1) for c in found[:MAX_ITEMS]]}, "rgb")


@_tool("arc_length", "drawing", *_CONTOUR_PARAMS, Param("index", "integer", "Which contour (0 = largest).", 0, 0, 100_000),
       Param("closed", "boolean", "Treat the contour as closed (perimeter).", True))
def arc_length(image: np.ndarray, cs: str, mode: str, min_area: float, index: int, closed: bool) -> ToolOutput:
    """Perimeter (or open curve length) in pixels of one contour (0 = largest), drawn."""
    found = _find_contours(image, cs, mode, min_area)
    chosen = _pick("arc_length", found, index)
    out = to_rgb_space(image, cs)
    cv2.drawContours(out, [chosen], -1, (255, 0, 0), 2)
    return ToolOutput(out, {"index": index, "length": _r(cv2.arcLength(chosen, closed), 1), "count": len(found)}, "rgb")


@_tool("approx_poly", "drawing", *_CONTOUR_PARAMS, Param("index", "integer", "Which contour (0 = largest).", 0, 0, 100_000),
       Param("epsilon_ratio", "number", "Tolerance as a share of the contour's perimeter.", 0.02, 0.001, 0.5))
def approx_poly(image: np.ndarray, cs: str, mode: str, min_area: float, index: int, epsilon_ratio: float) -> ToolOutput:
    """Approximate one contour (0 = largest) by a polygon with fewer vertices (Douglas-Peucker) and draw
    it. Returns the vertex count and the vertices [x, y]."""
    found = _find_contours(image, cs, mode, min_area)
    chosen = _pick("approx_poly", found, index)
    poly = cv2.approxPolyDP(chosen, epsilon_ratio * cv2.arcLength(chosen, True), True)
    out = to_rgb_space(image, cs)
    cv2.polylines(out, [poly], True, (255, 0, 0), 2, cv2.LINE_AA)
    vertices = [[int(p[0][0]), int(p[0][1])] for p in poly]
    return ToolOutput(out, {"index": index, "vertex_count": len(vertices), "vertices": vertices, "area": _r(cv2.contourArea(poly), 1)}, "rgb")


@_tool("draw_line", "drawing",
       Param("start", "point", "Start point [x, y]."), Param("end", "point", "End point [x, y]."),
       Param("color", "color", "Line colour (RGB).", [255, 0, 0]),
       Param("thickness", "integer", "Line thickness.", 2, 1, 50))
def draw_line(image: np.ndarray, cs: str, start: list[float], end: list[float], color: list[float], thickness: int) -> ToolOutput:
    """Draw a straight line (e.g. an auxiliary line between two points). Returns its length in pixels
    and angle in degrees (0 = horizontal, counter-clockwise positive with y up)."""
    out = to_rgb_space(image, cs)
    p, q = (int(round(start[0])), int(round(start[1]))), (int(round(end[0])), int(round(end[1])))
    cv2.line(out, p, q, _color_tuple(color), thickness, cv2.LINE_AA)
    length = math.hypot(end[0] - start[0], end[1] - start[1])
    angle = math.degrees(math.atan2(-(end[1] - start[1]), end[0] - start[0])) % 180.0
    return ToolOutput(out, {"length": _r(length), "angle": _r(angle), "start": start, "end": end}, "rgb")


@_tool("draw_circle", "drawing",
       Param("center", "point", "Centre [x, y]."), Param("radius", "number", "Radius in pixels.", minimum=0, maximum=100_000),
       Param("color", "color", "Circle colour (RGB).", [0, 255, 0]),
       Param("thickness", "integer", "Outline thickness (-1 fills).", 2, -1, 50))
def draw_circle(image: np.ndarray, cs: str, center: list[float], radius: float, color: list[float], thickness: int) -> ToolOutput:
    """Draw a circle (e.g. to check a fitted circle). Returns its circumference and area in pixels."""
    if thickness == 0:
        raise ToolError("bad_parameter", "draw_circle: parameter 'thickness' must be -1 (filled) or 1..50, got 0.")
    out = to_rgb_space(image, cs)
    cv2.circle(out, (int(round(center[0])), int(round(center[1]))), int(round(radius)), _color_tuple(color), thickness, cv2.LINE_AA)
    return ToolOutput(out, {"center": center, "radius": _r(radius), "circumference": _r(2 * math.pi * radius), "area": _r(math.pi * radius**2)}, "rgb")


# ---------------------------------------------------------------------------------------- the paper's names
#: The paper's tool names (Table 6 and the public interface) mapped onto ours, keys lower-cased.
PAPER_NAMES: dict[str, str] = {
    "resize": "resize", "rotate": "rotate", "translate": "translate", "flip": "flip", "crop": "crop",
    "zoom in": "zoom_in", "zoom_in": "zoom_in", "zoomin": "zoom_in", "pyramid": "pyramid", "pyr_up": "pyramid", "pyr_down": "pyramid",
    "convert color": "colorspace", "colorspace": "colorspace", "color space": "colorspace", "cvtcolor": "colorspace", "convert_color": "colorspace",
    "in-range color": "inrange_color", "inrange color": "inrange_color", "inrange_color": "inrange_color", "inrange": "inrange_color",
    "blur": "blur", "denoise": "denoise", "threshold": "threshold", "morphology": "morphology", "histogram": "histogram",
    "adjust brightness": "convertscaleabs", "convertscaleabs": "convertscaleabs", "brightness": "convertscaleabs",
    "inpaint": "inpaint", "sharpen": "sharpen",
    "canny edge": "canny", "canny": "canny", "compute gradients": "gradients", "gradients": "gradients", "sobel": "gradients",
    "watershed": "watershed", "grabcut": "grabcut", "flood fill": "floodfill", "floodfill": "floodfill",
    "conn. components": "connected_components", "connected components": "connected_components", "connected_components": "connected_components",
    "keypoint features": "features", "features": "features", "feature detection": "features",
    "hough lines": "hough_lines", "hough_lines": "hough_lines", "hough circles": "hough_circles", "hough_circles": "hough_circles",
    "template match": "template_match", "template_match": "template_match", "dft": "dft",
    "draw contours": "contours", "contours": "contours", "find contours": "contours",
    "approx poly": "approx_poly", "approx_poly": "approx_poly", "draw line": "draw_line", "draw_line": "draw_line",
    "draw circle": "draw_circle", "draw_circle": "draw_circle", "contour area": "contour_area", "contour_area": "contour_area",
    "arc length": "arc_length", "arc_length": "arc_length",
}


def map_paper_name(name: str) -> str | None:
    """Our tool name for a paper tool name ("Canny Edge" → "canny"), or ``None`` if unknown."""
    key = " ".join(str(name).strip().replace("_", " ").lower().split())
    return PAPER_NAMES.get(key) or PAPER_NAMES.get(key.replace(" ", "_")) or PAPER_NAMES.get(key.replace(" ", ""))
