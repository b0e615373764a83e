"""The wire format of ``mmenvs serve``: OpenEnv's message shapes, our observation encoding, and spaces
as JSON so a client rebuilds them exactly.

WebSocket (``/ws``, one connection = one session = one env in a worker process). The client sends
``{"type": "reset", "data": {"seed": 0, "options": {...}}}``, ``{"type": "step", "data": {"action": A}}``
(A: the env's action, a string or a dict such as a tool call), ``{"type": "state"}`` or
``{"type": "close"}``; the server answers ``{"type": "observation", "data": RESULT}``,
``{"type": "state", "data": {...}}`` or ``{"type": "error", "data": {"message": ..., "code": ...}}``.
RESULT is ``{"observation": OBS, "reward": float, "done": bool, "terminated": bool, "truncated": bool,
"info": {...}}`` where OBS has the observation's keys: text as strings, images as ``data:`` URLs (PNG or
JPEG). ``reward``/``done`` under ``observation``'s siblings is what OpenEnv's generic client reads.
"""

from __future__ import annotations

import io
import json
import math
from typing import Any, Mapping

import numpy as np
from gymnasium import spaces

from mmenvs.core.recorder import to_jsonable
from mmenvs.core.spaces import UnicodeText

#: Largest message the server reads (a WebSocket frame or an HTTP body): actions are code or tool calls.
DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
IMAGE_FORMATS = ("png", "jpeg")


class ProtocolError(ValueError):
    """A client message the server cannot act on; ``code`` is OpenEnv's error code, ``status`` the HTTP one."""

    def __init__(self, message: str, *, code: str = "VALIDATION_ERROR", status: int = 400) -> None:
        super().__init__(message)
        self.code = code
        self.status = status


# ----------------------------------------------------------------------------------------- spaces
def space_to_json(space: spaces.Space) -> dict[str, Any]:
    """``space`` as a JSON description ``space_from_json`` turns back into an equal space."""
    if isinstance(space, UnicodeText):
        return {"type": "UnicodeText", "min_length": space.min_length, "max_length": space.max_length}
    if isinstance(space, spaces.Dict):
        return {"type": "Dict", "spaces": {key: space_to_json(sub) for key, sub in space.spaces.items()}}
    if isinstance(space, spaces.Box):
        low, high = space.low, space.high
        uniform = bool(np.all(low == low.flat[0]) and np.all(high == high.flat[0]))
        return {"type": "Box", "shape": list(space.shape), "dtype": str(space.dtype),
                "low": _number(low.flat[0]) if uniform else to_jsonable(low.tolist()),
                "high": _number(high.flat[0]) if uniform else to_jsonable(high.tolist())}
    if isinstance(space, spaces.Discrete):
        return {"type": "Discrete", "n": int(space.n), "start": int(space.start)}
    if isinstance(space, spaces.Text):
        return {"type": "Text", "min_length": space.min_length, "max_length": space.max_length,
                "charset": "".join(space.character_set)}
    raise ProtocolError(f"cannot describe a {type(space).__name__} space over the wire "
                        f"(supported: Dict, Box, Discrete, Text, UnicodeText)", code="SCHEMA_ERROR", status=500)


def _number(value: Any) -> Any:
    value = float(value)
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    return int(value) if value.is_integer() else value


def _from_number(value: Any) -> Any:
    if isinstance(value, str):
        return float(value)
    if isinstance(value, list):
        return np.asarray([_from_number(v) for v in value])
    return value


def space_from_json(description: Mapping[str, Any]) -> spaces.Space:
    """The space a ``space_to_json`` description stands for."""
    kind = description.get("type")
    if kind == "UnicodeText":
        return UnicodeText(int(description["max_length"]), min_length=int(description["min_length"]))
    if kind == "Dict":
        return spaces.Dict({key: space_from_json(sub) for key, sub in description["spaces"].items()})
    if kind == "Box":
        dtype = np.dtype(description["dtype"])
        return spaces.Box(low=_from_number(description["low"]), high=_from_number(description["high"]),
                          shape=tuple(description["shape"]), dtype=dtype)
    if kind == "Discrete":
        return spaces.Discrete(int(description["n"]), start=int(description.get("start", 0)))
    if kind == "Text":
        return spaces.Text(int(description["max_length"]), min_length=int(description["min_length"]),
                           charset=description["charset"])
    raise ValueError(f"unknown space type {kind!r} in the server's schema")


def json_schema(space: spaces.Space, image_format: str) -> dict[str, Any]:
    """A JSON Schema of what the wire carries for ``space`` (OpenEnv's ``/schema`` shows these)."""
    if isinstance(space, spaces.Dict):
        return {"type": "object", "properties": {k: json_schema(s, image_format) for k, s in space.spaces.items()},
                "required": list(space.spaces)}
    if isinstance(space, (UnicodeText, spaces.Text)):
        return {"type": "string", "minLength": space.min_length, "maxLength": space.max_length}
    if _is_image(space):
        return {"type": "string", "contentEncoding": "base64", "contentMediaType": f"image/{image_format}",
                "description": f"data:image/{image_format};base64 URL of a {'x'.join(map(str, space.shape))} uint8 image"}
    if isinstance(space, spaces.Discrete):
        return {"type": "integer", "minimum": int(space.start), "maximum": int(space.start + space.n - 1)}
    return {"type": "array", "description": f"nested lists of shape {list(space.shape)}"}


def _is_image(space: spaces.Space) -> bool:
    return (isinstance(space, spaces.Box) and space.dtype == np.uint8 and len(space.shape) == 3
            and space.shape[2] in (1, 3, 4))


# ----------------------------------------------------------------------------------- observations
def encode_observation(obs: Mapping[str, Any], space: spaces.Dict, image_format: str = "png",
                       jpeg_quality: int = 90) -> dict[str, Any]:
    """An observation as JSON: strings stay, uint8 images become ``data:`` URLs, other arrays lists."""
    from mmenvs.wrappers.chat import encode_image

    encoded: dict[str, Any] = {}
    for key, value in obs.items():
        sub = space.spaces.get(key) if isinstance(space, spaces.Dict) else None
        if sub is not None and _is_image(sub):
            encoded[key] = encode_image(np.asarray(value), image_format=image_format, jpeg_quality=jpeg_quality)
        elif isinstance(value, np.ndarray):
            encoded[key] = value.tolist()
        else:
            encoded[key] = to_jsonable(value)
    return encoded


def decode_observation(encoded: Mapping[str, Any], space: spaces.Dict) -> dict[str, Any]:
    """The observation ``encode_observation`` encoded, as arrays of ``space``'s shapes and dtypes."""
    from mmenvs.wrappers.chat import decode_data_url

    obs: dict[str, Any] = {}
    for key, sub in space.spaces.items():
        if key not in encoded:
            raise ValueError(f"the server's observation has no {key!r} key (got {sorted(encoded)})")
        value = encoded[key]
        if _is_image(sub):
            from PIL import Image

            _, data = decode_data_url(value)
            with Image.open(io.BytesIO(data)) as image:
                array = np.asarray(image.convert("RGB" if sub.shape[2] == 3 else "RGBA" if sub.shape[2] == 4 else "L"))
            obs[key] = array.reshape(sub.shape)
        elif isinstance(sub, spaces.Box):
            obs[key] = np.asarray(value, dtype=sub.dtype).reshape(sub.shape)
        elif isinstance(sub, spaces.Discrete):
            obs[key] = np.int64(value)
        else:
            obs[key] = value
    return obs


def step_result(obs: Mapping[str, Any], reward: float, terminated: bool, truncated: bool, info: Mapping[str, Any],
                space: spaces.Dict, image_format: str) -> dict[str, Any]:
    """The RESULT payload of a reset or step (see the module docstring); JSON-safe throughout."""
    return {"observation": encode_observation(obs, space, image_format), "reward": float(reward),
            "done": bool(terminated or truncated), "terminated": bool(terminated), "truncated": bool(truncated),
            "info": to_jsonable(dict(info))}


# ------------------------------------------------------------------------------------- messages
def parse_json_object(raw: str | bytes, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """A JSON object from a client (a WebSocket message or an HTTP body), or ``ProtocolError``."""
    if len(raw) > max_bytes:
        raise ProtocolError(f"message of {len(raw)} bytes is over the server's limit of {max_bytes} bytes",
                            code="MESSAGE_TOO_LARGE", status=413)
    try:
        message = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ProtocolError(f"Invalid JSON: {exc}", code="INVALID_JSON") from None
    if not isinstance(message, dict):
        raise ProtocolError(f"a message must be a JSON object, got {type(message).__name__}", code="INVALID_JSON")
    return message


def parse_message(raw: str | bytes, max_bytes: int = DEFAULT_MAX_MESSAGE_BYTES) -> dict[str, Any]:
    """A WebSocket message as a dict with ``type`` and ``data``; ``ProtocolError`` naming what is wrong otherwise."""
    message = parse_json_object(raw, max_bytes)
    data = message.get("data")
    if data is None:
        message["data"] = data = {}
    if not isinstance(data, dict):
        raise ProtocolError(f"'data' must be a JSON object, got {type(data).__name__}")
    return message


def reset_arguments(data: Mapping[str, Any]) -> dict[str, Any]:
    """``env.reset`` keywords from a reset request: ``seed`` (int or null), ``options`` (object or null)."""
    unknown = set(data) - {"seed", "options", "episode_id", "session_id"}
    if unknown:
        raise ProtocolError(f"reset takes 'seed' and 'options'; unknown fields {sorted(unknown)}")
    seed = data.get("seed")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
        raise ProtocolError(f"reset 'seed' must be an integer or null, got {seed!r}")
    options = data.get("options")
    if options is not None and not isinstance(options, dict):
        raise ProtocolError(f"reset 'options' must be a JSON object or null, got {type(options).__name__}")
    return {"seed": seed, "options": options}


def step_action(data: Mapping[str, Any]) -> str | dict[str, Any]:
    """The env action of a step request: ``data["action"]``, a string or a JSON object."""
    if "action" not in data:
        raise ProtocolError("step needs 'action' (the env's action: a string, or an object such as a tool call "
                            "{\"name\": ..., \"arguments\": {...}})")
    action = data["action"]
    if not isinstance(action, (str, dict)):
        raise ProtocolError(f"step 'action' must be a string or a JSON object, got {type(action).__name__}")
    return action


def error_message(message: str, code: str, **extra: Any) -> dict[str, Any]:
    """OpenEnv's WebSocket error response."""
    return {"type": "error", "data": {"message": message, "code": code, **extra}}
