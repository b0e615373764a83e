"""Observations as OpenAI chat messages: text parts, images as ``data:`` URLs, tool results answering
the model's ``tool_calls``, and a window that keeps only the last N images.

This is the one message format mmenvs' LLM agent sends and that LLM trainers (SkyRL, verifiers, TRL,
ART) consume. Three layers, each usable alone:

- ``encode_image(array)``: one image as a ``data:image/jpeg;base64,…`` (or PNG) URL, downscaled to a
  maximum side. JPEG through OpenCV's libjpeg-turbo takes ~2.5 ms for a 1280×800 screenshot; PNG
  takes ~20 ms at that size, so JPEG is the default.
- ``ChatHistory``: an append-only conversation (system, user, assistant, tool messages) whose
  ``messages()`` is ready for ``client.chat.completions.create(messages=…)``. Images older than the
  last ``max_images`` become a short text marker such as ``[image img_3 omitted]``.
- ``ChatMessages``: a Gymnasium wrapper that records an env's observation stream into a
  ``ChatHistory``. ``step`` takes the env's own action or the model's assistant message (a dict with
  ``role="assistant"``), whose tool calls it runs in order, each result answering its call id.

Example (any OpenAI-compatible client)::

    env = ChatMessages(gym.make("VTCBench-v0", mode="tool"), system="You are a visual agent.", max_images=4)
    obs, info = env.reset(seed=0)
    reply = client.chat.completions.create(model=M, messages=env.messages(), tools=env.unwrapped.tool_specs())
    obs, reward, terminated, truncated, info = env.step(reply.choices[0].message.model_dump())
"""

from __future__ import annotations

import base64
import json
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable, Mapping, Sequence

import cv2
import gymnasium as gym
import numpy as np

IMAGE_FORMATS = ("jpeg", "png")
#: What replaces an image that fell out of the history window (``{id}`` is the image's id).
DEFAULT_IMAGE_MARKER = "[image {id} omitted]"


def encode_image(image: np.ndarray, *, image_format: str = "jpeg", jpeg_quality: int = 85,
                 max_side: int | None = None) -> str:
    """``image`` (uint8 H×W gray, H×W×3 RGB or H×W×4 RGBA) as a ``data:`` URL.

    ``max_side`` downscales (area interpolation, aspect ratio kept) so the longer side is at most that
    many pixels; smaller images are never enlarged. JPEG drops an alpha channel (composited on black).
    """
    if image_format not in IMAGE_FORMATS:
        raise ValueError(f"encode_image: image_format must be one of {IMAGE_FORMATS}, got {image_format!r}")
    if not 1 <= int(jpeg_quality) <= 100:
        raise ValueError(f"encode_image: jpeg_quality must be in 1..100, got {jpeg_quality!r}")
    array = np.asarray(image)
    if array.dtype != np.uint8 or array.ndim not in (2, 3) or (array.ndim == 3 and array.shape[2] not in (1, 3, 4)):
        raise ValueError(f"encode_image: expected a uint8 H×W, H×W×3 or H×W×4 array, got {array.dtype} {array.shape}")
    if max_side is not None:
        if int(max_side) < 1:
            raise ValueError(f"encode_image: max_side must be a positive number of pixels, got {max_side!r}")
        height, width = array.shape[:2]
        scale = int(max_side) / max(height, width)
        if scale < 1.0:
            size = (max(1, round(width * scale)), max(1, round(height * scale)))
            array = cv2.resize(array, size, interpolation=cv2.INTER_AREA)
    # OpenCV encodes BGR(A); convert once (gray needs nothing).
    if array.ndim == 3 and array.shape[2] == 1:
        array = array[:, :, 0]
    if array.ndim == 3:
        if array.shape[2] == 4:
            code, channels = (cv2.COLOR_RGBA2BGRA, 4) if image_format == "png" else (cv2.COLOR_RGBA2BGR, 3)
        else:
            code, channels = cv2.COLOR_RGB2BGR, 3
        array = cv2.cvtColor(array, code, dst=_scratch((*array.shape[:2], channels)))
    if image_format == "jpeg":
        ok, data = cv2.imencode(".jpg", array, [cv2.IMWRITE_JPEG_QUALITY, int(jpeg_quality)])
        mime = "image/jpeg"
    else:
        ok, data = cv2.imencode(".png", array, [cv2.IMWRITE_PNG_COMPRESSION, 1])
        mime = "image/png"
    if not ok:
        raise ValueError(f"encode_image: OpenCV could not encode a {array.shape} image as {image_format}")
    return f"data:{mime};base64,{base64.b64encode(data.tobytes()).decode('ascii')}"


_SCRATCH = threading.local()


def _scratch(shape: tuple[int, ...]) -> np.ndarray:
    """This thread's reusable buffer for the colour conversion: a fresh 3 MB array per screenshot costs
    ~2 ms of page faults where big blocks are mapped anew on each allocation (mmenvs' tuned allocator)."""
    buffer = getattr(_SCRATCH, "buffer", None)
    if buffer is None or buffer.shape != shape:
        buffer = _SCRATCH.buffer = np.empty(shape, np.uint8)
    return buffer


def decode_data_url(url: str) -> tuple[str, bytes]:
    """The MIME type and bytes of a ``data:<mime>;base64,<payload>`` URL (raises ``ValueError`` otherwise)."""
    if not isinstance(url, str) or not url.startswith("data:") or ";base64," not in url:
        raise ValueError(f"not a base64 data URL: {str(url)[:60]!r}")
    head, _, payload = url.partition(";base64,")
    return head[len("data:"):], base64.b64decode(payload, validate=True)


@dataclass
class ImageOptions:
    """How images enter the conversation: format, JPEG quality, maximum side, how many stay visible."""

    max_images: int | None = 4
    image_format: str = "jpeg"
    jpeg_quality: int = 85
    max_side: int | None = None
    marker: str = DEFAULT_IMAGE_MARKER

    def __post_init__(self) -> None:
        if self.max_images is not None and int(self.max_images) < 0:
            raise ValueError(f"max_images must be None (keep all) or >= 0, got {self.max_images!r}")
        if self.image_format not in IMAGE_FORMATS:
            raise ValueError(f"image_format must be one of {IMAGE_FORMATS}, got {self.image_format!r}")
        if not 1 <= int(self.jpeg_quality) <= 100:
            raise ValueError(f"jpeg_quality must be in 1..100, got {self.jpeg_quality!r}")
        if "{id}" not in self.marker:
            raise ValueError(f"the image marker must contain '{{id}}' (the omitted image's id), got {self.marker!r}")

    def encode(self, image: np.ndarray) -> str:
        return encode_image(image, image_format=self.image_format, jpeg_quality=self.jpeg_quality, max_side=self.max_side)


@dataclass
class _ImageSlot:
    """Where one image part sits, so the window can swap it for its marker later."""

    message_index: int
    part_index: int
    image_id: str


@dataclass
class ChatHistory:
    """An OpenAI chat conversation built step by step, with a window over its images.

    Messages are never edited in place: when an image leaves the window its message is replaced by a
    copy whose image part is the marker text, so a list returned earlier by ``messages()`` stays valid.
    """

    images: ImageOptions = field(default_factory=ImageOptions)
    _messages: list[dict[str, Any]] = field(default_factory=list)
    _visible: list[_ImageSlot] = field(default_factory=list)

    # ------------------------------------------------------------------ building
    def add_system(self, text: str) -> None:
        """A system message (normally first)."""
        self._messages.append({"role": "system", "content": str(text)})

    def add_user(self, text: str, images: Sequence[tuple[str, np.ndarray | str]] = ()) -> None:
        """A user message: ``text`` then each image (``(id, array or data URL)``), labelled by its id."""
        self._messages.append({"role": "user", "content": []})
        self._append_parts(len(self._messages) - 1, text, images)

    def add_assistant(self, content: str | None, tool_calls: Sequence[Mapping[str, Any]] = ()) -> None:
        """The model's reply. ``tool_calls`` in OpenAI form (``id``, ``function.name``,
        ``function.arguments`` as a JSON string); their answers follow as ``add_tool_result``."""
        message: dict[str, Any] = {"role": "assistant", "content": content if content else None}
        if tool_calls:
            message["tool_calls"] = [_openai_tool_call(call) for call in tool_calls]
        elif message["content"] is None:
            message["content"] = ""
        self._messages.append(message)

    def add_tool_result(self, tool_call_id: str, text: str, images: Sequence[tuple[str, np.ndarray | str]] = ()) -> None:
        """The answer to tool call ``tool_call_id``. Tool messages carry text only (the API allows no
        images there), so images the call produced follow in a user message naming the call."""
        self._messages.append({"role": "tool", "tool_call_id": str(tool_call_id), "content": str(text)})
        if images:
            self.add_user(f"Images produced by tool call {tool_call_id}:", images)

    def pending_tool_calls(self) -> list[str]:
        """Ids of the last assistant message's tool calls not answered yet (the API rejects a next
        request while any is open)."""
        for index in range(len(self._messages) - 1, -1, -1):
            message = self._messages[index]
            if message["role"] == "assistant":
                answered = {m.get("tool_call_id") for m in self._messages[index + 1:] if m["role"] == "tool"}
                return [c["id"] for c in message.get("tool_calls", ()) if c["id"] not in answered]
        return []

    # ------------------------------------------------------------------ reading
    def messages(self) -> list[dict[str, Any]]:
        """The conversation so far, ready to send (a new list; the message dicts are shared, never mutated)."""
        return list(self._messages)

    def visible_image_ids(self) -> list[str]:
        """Ids of the images still sent as pixels, oldest first."""
        return [slot.image_id for slot in self._visible]

    def __len__(self) -> int:
        return len(self._messages)

    # ------------------------------------------------------------------ internals
    def _append_parts(self, index: int, text: str, images: Sequence[tuple[str, np.ndarray | str]]) -> None:
        parts: list[dict[str, Any]] = []
        if text:
            parts.append({"type": "text", "text": str(text)})
        new_slots = []
        for image_id, image in images:
            url = image if isinstance(image, str) else self.images.encode(image)
            parts.append({"type": "text", "text": f"[{image_id}]"})
            parts.append({"type": "image_url", "image_url": {"url": url}})
            new_slots.append(_ImageSlot(index, len(parts) - 1, str(image_id)))
        if not parts:
            parts.append({"type": "text", "text": "(no output)"})
        self._messages[index] = {**self._messages[index], "content": parts}
        self._visible.extend(new_slots)
        self._apply_window()

    def _apply_window(self) -> None:
        limit = self.images.max_images
        if limit is None:
            return
        while len(self._visible) > limit:
            slot = self._visible.pop(0)
            message = self._messages[slot.message_index]
            parts = list(message["content"])
            parts[slot.part_index] = {"type": "text", "text": self.images.marker.format(id=slot.image_id)}
            self._messages[slot.message_index] = {**message, "content": parts}


def _openai_tool_call(call: Mapping[str, Any]) -> dict[str, Any]:
    function = call.get("function") or {}
    arguments = function.get("arguments", "{}")
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, ensure_ascii=False)
    return {"id": str(call["id"]), "type": "function", "function": {"name": str(function.get("name", "")), "arguments": arguments}}


# ---------------------------------------------------------------------- observations and actions
def observation_images(env: gym.Env, obs: Mapping[str, Any], info: Mapping[str, Any]) -> list[tuple[str, np.ndarray]]:
    """The images new this step, full resolution from the env's image store (``info["images"]``
    names them); an env without a store gives its observation image when the step reports new ones."""
    store = getattr(getattr(env, "unwrapped", env), "images", None)
    new_ids = list(info.get("images") or [])
    if store is not None and hasattr(store, "rgb"):
        return [(image_id, store.rgb(image_id)) for image_id in new_ids if image_id in store]
    if new_ids and isinstance(obs.get("image"), np.ndarray):
        return [(new_ids[-1], obs["image"])]
    return []


def observation_text(obs: Mapping[str, Any], info: Mapping[str, Any], text_keys: Sequence[str] = ("text",)) -> str:
    """The observation's text for the model: ``obs[key]`` for each of ``text_keys`` that holds text
    (extra keys such as MacAgent's ``a11y`` under a heading)."""
    pieces = []
    for key in text_keys:
        value = obs.get(key)
        if isinstance(value, str) and value:
            pieces.append(value if key == "text" else f"## {key}\n{value}")
    return "\n\n".join(pieces)


class ToolCallError(ValueError):
    """A tool call the env cannot receive (arguments that are not a JSON object); the message says why."""


def tool_call_action(env: gym.Env | None, name: str, arguments: str | Mapping[str, Any]) -> dict[str, Any]:
    """The env action for a model's tool call: ``{"name": name, "arguments": {...}}`` (the form
    ``mmenvs.core.parse_tool_call`` accepts), or what the env's optional ``tool_call_action(name,
    arguments)`` hook returns for envs whose dict actions look different."""
    if isinstance(arguments, str):
        try:
            parsed = json.loads(arguments) if arguments.strip() else {}
        except json.JSONDecodeError as exc:
            raise ToolCallError(f"The arguments of your call to {name!r} are not valid JSON ({exc.msg} at "
                                f"position {exc.pos}): send them as one JSON object.") from None
    else:
        parsed = dict(arguments)
    if not isinstance(parsed, dict):
        raise ToolCallError(f"The arguments of your call to {name!r} must be a JSON object, got {type(parsed).__name__}.")
    hook = getattr(getattr(env, "unwrapped", env), "tool_call_action", None) if env is not None else None
    if callable(hook):
        return hook(name, parsed)
    return {"name": name, "arguments": parsed}


def assistant_message(message: Any) -> dict[str, Any]:
    """An assistant message as a plain dict: an openai ``ChatCompletionMessage`` or a dict."""
    if hasattr(message, "model_dump"):
        message = message.model_dump(exclude_none=True)
    if not isinstance(message, Mapping):
        raise TypeError(f"expected an assistant message (dict or ChatCompletionMessage), got {type(message).__name__}")
    return dict(message)


class ChatMessages(gym.Wrapper):
    """Keeps the env's observation stream as OpenAI chat messages (see the module docstring).

    ``system`` is the system prompt (a string, or a function of the reset ``(obs, info)``, e.g. to put
    the task's instruction in it). ``text_keys`` are the observation keys whose text is shown.
    ``messages()`` is the conversation to send next; ``history`` the underlying ``ChatHistory``.
    """

    def __init__(self, env: gym.Env, *, system: str | Callable[[dict, dict], str] | None = None,
                 max_images: int | None = 4, image_format: str = "jpeg", jpeg_quality: int = 85,
                 max_side: int | None = None, image_marker: str = DEFAULT_IMAGE_MARKER,
                 text_keys: Sequence[str] = ("text",)) -> None:
        super().__init__(env)
        self.system = system
        self.image_options = ImageOptions(max_images, image_format, jpeg_quality, max_side, image_marker)
        self.text_keys = tuple(text_keys)
        self.history = ChatHistory(self.image_options)

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[Any, dict[str, Any]]:
        obs, info = self.env.reset(seed=seed, options=options)
        self.history = ChatHistory(self.image_options)
        system = self.system(obs, info) if callable(self.system) else self.system
        if system:
            self.history.add_system(system)
        self.history.add_user(observation_text(obs, info, self.text_keys), observation_images(self.env, obs, info))
        return obs, info

    def step(self, action: Any) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        """One env step for an env action, or one per tool call of an assistant message (the rewards
        summed, the last step's observation and info returned, ``info["chat_steps"]`` the count).
        Calls left when the episode ends are answered with a note that they did not run."""
        if (isinstance(action, Mapping) and action.get("role") == "assistant") or hasattr(action, "model_dump"):
            return self._step_message(assistant_message(action))
        self.history.add_assistant(action if isinstance(action, str) else json.dumps(action, ensure_ascii=False))
        obs, reward, terminated, truncated, info = self.env.step(action)
        self.history.add_user(observation_text(obs, info, self.text_keys), observation_images(self.env, obs, info))
        return obs, reward, terminated, truncated, info

    def messages(self) -> list[dict[str, Any]]:
        """The conversation to send to the model next."""
        return self.history.messages()

    def _step_message(self, message: dict[str, Any]) -> tuple[Any, float, bool, bool, dict[str, Any]]:
        calls = list(message.get("tool_calls") or [])
        content = message.get("content")
        self.history.add_assistant(content if isinstance(content, str) else None, calls)
        if not calls:
            obs, reward, terminated, truncated, info = self.env.step(content or "")
            self.history.add_user(observation_text(obs, info, self.text_keys), observation_images(self.env, obs, info))
            return obs, reward, terminated, truncated, {**info, "chat_steps": 1}
        total, steps, result = 0.0, 0, None
        for call in calls:
            function = call.get("function") or {}
            if result is not None and (result[2] or result[3]):
                self.history.add_tool_result(call["id"], "Not run: the episode ended before this call.")
                continue
            name, arguments = str(function.get("name", "")), function.get("arguments", "{}")
            try:
                action = tool_call_action(self.env, name, arguments)
            except ToolCallError:
                action = {"name": name, "arguments": arguments}  # the env's parser reports it as an error observation
            result = self.env.step(action)
            steps += 1
            total += float(result[1])
            obs, _, _, _, info = result
            self.history.add_tool_result(call["id"], observation_text(obs, info, self.text_keys), observation_images(self.env, obs, info))
        obs, _, terminated, truncated, info = result
        return obs, total, terminated, truncated, {**info, "chat_steps": steps}


def strip_images(messages: Iterable[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """``messages`` with every image part replaced by ``[image]`` (for logs and records)."""
    out = []
    for message in messages:
        content = message.get("content")
        if isinstance(content, list):
            content = [p if p.get("type") != "image_url" else {"type": "text", "text": "[image]"} for p in content]
        out.append({**message, "content": content})
    return out
