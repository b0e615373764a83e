"""The LLM agent: any OpenAI-compatible chat endpoint plays an mmenvs env, in each paper's set-up.

``load_agent("llm", model=..., base_url=..., api_key=..., framework=..., **options)`` returns an
``LLMAgent``; the runner calls ``bind(env)``, ``reset(task_info)`` and ``act(obs, info)`` per step.

Per step the agent adds the observation to its ``ChatHistory`` (``mmenvs.wrappers.chat``: text,
data-URL images, tool results answering the model's call ids, the last ``max_images`` images kept),
asks the model (with ``tools=`` from ``env.tool_specs()`` for function-calling frameworks) and turns
the reply into the env's action: the reply's text, or a tool call as ``{"name", "arguments"}``
(several calls in one reply are played one per step, each result answering its id).

Harness behaviour: retries with exponential backoff (and the server's ``Retry-After``) on 408/409/
429/5xx, timeouts and dropped connections; a per-call timeout; a bounded re-prompt, with the error
shown to the model, when a reply cannot be used (empty, or tool arguments that are not a JSON
object); a ledger of calls, tokens and cost per episode; an optional response cache keyed by a hash of
the request, so a run replays exactly without the endpoint. An endpoint that still fails after the
retries (or rejects the credentials, or does not know the model) raises ``InfrastructureFailure``,
which the runner records apart from scores.
"""

from __future__ import annotations

import hashlib
import inspect
import json
import os
import tempfile
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

import openai
import tenacity
from openai.types.chat import ChatCompletion

from mmenvs.baselines.agents import InfrastructureFailure
from mmenvs.wrappers.chat import (ChatHistory, ImageOptions, ToolCallError, observation_images, observation_text,
                                  tool_call_action)

from .prompts import Framework, render, resolve_framework

CACHE_MODES = ("readwrite", "replay")
#: Statuses worth another try (the openai client's own retry set).
_TRANSIENT_STATUSES = {408, 409, 429}
#: Statuses that mean the endpoint is misconfigured (credentials, model name, route): infrastructure.
_CONFIG_STATUSES = {401, 403, 404}


class RequestRejected(RuntimeError):
    """The endpoint refused this request itself (HTTP 400/413/422: e.g. the context is too long):
    the episode ends as an agent error (scored 0), not as an infrastructure failure."""


@dataclass
class Ledger:
    """Calls, tokens and cost of one episode (``cost_usd`` is None when no prices were given)."""

    calls: int = 0
    cached_calls: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    retries: int = 0
    reprompts: int = 0
    action_errors: int = 0
    cost_usd: float | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


class ResponseCache:
    """Completions on disk, one JSON file per request hash (``<dir>/<hash[:2]>/<hash>.json``).

    Writes go through a temporary file and ``os.replace``, so workers sharing a cache never see a
    torn entry. The key is the SHA-256 of the request as sent (model, messages with their data-URL
    images, tools, sampling options), serialised with sorted keys.
    """

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        self.folder.mkdir(parents=True, exist_ok=True)

    @staticmethod
    def key(request: Mapping[str, Any]) -> str:
        return hashlib.sha256(json.dumps(request, sort_keys=True, ensure_ascii=False).encode("utf-8")).hexdigest()

    def _path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    def get(self, key: str) -> dict[str, Any] | None:
        path = self._path(key)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            raise ValueError(f"response cache entry {path} is unreadable ({exc}); delete it to call the endpoint again") from None

    def put(self, key: str, response: Mapping[str, Any]) -> None:
        path = self._path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".json")
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                json.dump(response, stream, ensure_ascii=False)
            os.replace(temporary, path)
        except BaseException:
            Path(temporary).unlink(missing_ok=True)
            raise


class LLMAgent:
    """An agent backed by an OpenAI-compatible chat completions endpoint.

    ``model``, ``base_url`` (None: the openai client's default, i.e. ``OPENAI_BASE_URL`` or OpenAI),
    ``api_key`` (or ``api_key_env``, the name of the variable holding it; then ``OPENAI_API_KEY``;
    local servers accept any key), ``framework`` (see ``prompts.FRAMEWORKS``; None: the env's default).
    Sampling: ``temperature``, ``max_tokens``, ``seed``, ``top_p``, ``extra_body`` (passed through and
    recorded). Harness: ``timeout`` (s per call), ``retries`` (after the first try), ``backoff`` and
    ``backoff_max`` (s), ``max_reprompts`` (per step). Images: ``max_images`` (kept in the history),
    ``image_format`` ("jpeg" | "png"), ``jpeg_quality``, ``max_image_side`` (px). Cost:
    ``price_prompt`` and ``price_completion`` in USD per 1M tokens. ``cache``: a folder for the
    response cache; ``cache_mode`` "readwrite" (hits replayed, misses asked and stored) or "replay"
    (a miss is an infrastructure failure: no request leaves the machine). ``system_prompt``: a
    template replacing the framework's (``{action_description}`` and ``{instruction}`` are filled).
    """

    def __init__(
        self,
        model: str,
        base_url: str | None = None,
        api_key: str | None = None,
        framework: str | None = None,
        *,
        api_key_env: str | None = None,
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = None,
        top_p: float | None = None,
        extra_body: Mapping[str, Any] | None = None,
        timeout: float = 120.0,
        retries: int = 5,
        backoff: float = 1.0,
        backoff_max: float = 60.0,
        max_reprompts: int = 2,
        max_images: int | None = 4,
        image_format: str = "jpeg",
        jpeg_quality: int = 85,
        max_image_side: int | None = None,
        text_keys: Sequence[str] | None = None,
        price_prompt: float | None = None,
        price_completion: float | None = None,
        cache: str | Path | None = None,
        cache_mode: str = "readwrite",
        system_prompt: str | None = None,
    ) -> None:
        if not isinstance(model, str) or not model:
            raise ValueError("LLMAgent: model must be the endpoint's model name (e.g. 'gpt-4o' or the name vLLM serves)")
        for name, value in (("timeout", timeout), ("backoff", backoff), ("backoff_max", backoff_max)):
            if not float(value) > 0:
                raise ValueError(f"LLMAgent: {name} must be a positive number of seconds, got {value!r}")
        for name, value in (("retries", retries), ("max_reprompts", max_reprompts)):
            if int(value) < 0:
                raise ValueError(f"LLMAgent: {name} must be >= 0, got {value!r}")
        if cache_mode not in CACHE_MODES:
            raise ValueError(f"LLMAgent: cache_mode must be one of {CACHE_MODES}, got {cache_mode!r}")
        if cache_mode == "replay" and cache is None:
            raise ValueError("LLMAgent: cache_mode='replay' needs cache=<folder> (the responses to replay)")
        for name, value in (("price_prompt", price_prompt), ("price_completion", price_completion)):
            if value is not None and float(value) < 0:
                raise ValueError(f"LLMAgent: {name} is USD per 1M tokens and must be >= 0, got {value!r}")
        self.model = model
        self.base_url = base_url
        self.framework_name = framework
        self.sampling = {k: v for k, v in (("temperature", temperature), ("max_tokens", max_tokens), ("seed", seed),
                                            ("top_p", top_p)) if v is not None}
        self.extra_body = dict(extra_body or {})
        self.timeout, self.retries = float(timeout), int(retries)
        self.backoff, self.backoff_max = float(backoff), float(backoff_max)
        self.max_reprompts = int(max_reprompts)
        self.image_options = ImageOptions(max_images, image_format, jpeg_quality, max_image_side)
        self.text_keys = tuple(text_keys) if text_keys is not None else None
        self.prices = (price_prompt, price_completion)
        self.cache = ResponseCache(cache) if cache is not None else None
        self.cache_mode = cache_mode
        self.system_prompt = system_prompt
        self._api_key = api_key if api_key is not None else os.environ.get(api_key_env or "OPENAI_API_KEY")
        if api_key is None and api_key_env and self._api_key is None:
            raise ValueError(f"LLMAgent: the environment variable {api_key_env!r} (api_key_env) is not set")
        self._client: openai.OpenAI | None = None
        self._env: Any = None
        self.framework: Framework | None = None
        self._history: ChatHistory | None = None
        self._pending_call: str | None = None  # the tool call whose result the next observation is
        self._queued: list[tuple[str, Any]] = []  # (call id, action) of a reply's further tool calls
        self._ledger = Ledger()

    # ------------------------------------------------------------------ the runner's interface
    def bind(self, env: Any) -> None:
        """Use ``env`` (the unwrapped env): check the framework and the env's action interface."""
        framework = resolve_framework(env, self.framework_name)
        missing = [name for name in ("action_description", "tool_specs") if not callable(getattr(env, name, None))]
        if missing:
            raise TypeError(f"LLMAgent: {type(env).__name__} does not offer {' and '.join(m + '()' for m in missing)}, "
                            "which the LLM agent builds its prompt and tools from (issue 13, item 1)")
        self._env, self.framework = env, framework

    def reset(self, task_info: dict[str, Any]) -> None:
        """A new episode: empty history and ledger (the system prompt is built at the first ``act``,
        when the observation with the task's instruction is known)."""
        self._history = None
        self._pending_call = None
        self._queued = []
        self._ledger = Ledger(cost_usd=0.0 if any(p is not None for p in self.prices) else None)

    def act(self, obs: dict[str, Any], info: dict[str, Any]) -> str | dict[str, Any]:
        """The next action: a further tool call of the last reply, else the model's new reply."""
        if self._env is None or self.framework is None:
            raise RuntimeError("LLMAgent.act: call bind(env) first (the runner does this)")
        if self._history is None:
            self._start(obs, info)
        else:
            if info.get("action_error"):
                self._ledger.action_errors += 1
            self._record(obs, info)
        if self._queued:
            self._pending_call, action = self._queued.pop(0)
            return action
        return self._ask()

    def ledger(self) -> dict[str, Any]:
        """This episode's calls, tokens and cost (what the runner puts in the episode record)."""
        return self._ledger.as_dict()

    def config(self) -> dict[str, Any]:
        """The set-up as recorded with each episode (never the API key)."""
        return {"model": self.model, "base_url": self.base_url,
                "framework": self.framework.name if self.framework else self.framework_name,
                "sampling": dict(self.sampling), "extra_body": dict(self.extra_body),
                "images": {"max_images": self.image_options.max_images, "format": self.image_options.image_format,
                           "jpeg_quality": self.image_options.jpeg_quality, "max_side": self.image_options.max_side},
                "timeout": self.timeout, "retries": self.retries, "max_reprompts": self.max_reprompts,
                "prices_per_1m": {"prompt": self.prices[0], "completion": self.prices[1]},
                "cache": str(self.cache.folder) if self.cache else None, "cache_mode": self.cache_mode}

    def messages(self) -> list[dict[str, Any]]:
        """The conversation so far (what the next request would send)."""
        return self._history.messages() if self._history else []

    def close(self) -> None:
        if self._client is not None:
            self._client.close()
            self._client = None

    # ------------------------------------------------------------------ prompt and history
    def _text_keys(self) -> tuple[str, ...]:
        return self.text_keys if self.text_keys is not None else self.framework.text_keys

    def _start(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        framework = self.framework
        description = _call_with_framework(self._env.action_description, framework.name)
        if not isinstance(description, str) or not description.strip():
            raise TypeError(f"LLMAgent: {type(self._env).__name__}.action_description() must return the grammar as "
                            f"non-empty text, got {description!r}")
        text = observation_text(obs, info, self._text_keys())
        instruction = obs.get("instruction") if isinstance(obs.get("instruction"), str) else text
        self._history = ChatHistory(self.image_options)
        self._history.add_system(render(self.system_prompt or framework.system, action_description=description,
                                        instruction=instruction))
        self._history.add_user(render(framework.first_user, text=text), observation_images(self._env, obs, info))

    def _record(self, obs: Mapping[str, Any], info: Mapping[str, Any]) -> None:
        text = observation_text(obs, info, self._text_keys())
        images = observation_images(self._env, obs, info)
        if self._pending_call is not None:
            self._history.add_tool_result(self._pending_call, text or "(no output)", images)
            self._pending_call = None
        else:
            self._history.add_user(render(self.framework.user, text=text), images)

    def _tools(self) -> list[dict[str, Any]]:
        specs = _call_with_framework(self._env.tool_specs, self.framework.name)
        if not isinstance(specs, list) or not specs:
            raise TypeError(f"LLMAgent: framework {self.framework.name!r} calls functions, but "
                            f"{type(self._env).__name__}.tool_specs() gave {type(specs).__name__} {str(specs)[:80]!r}, "
                            "not a non-empty list of OpenAI function schemas")
        for index, spec in enumerate(specs):
            function = spec.get("function") if isinstance(spec, Mapping) else None
            if not (isinstance(spec, Mapping) and spec.get("type") == "function" and isinstance(function, Mapping)
                    and isinstance(function.get("name"), str)):
                raise TypeError(f"LLMAgent: {type(self._env).__name__}.tool_specs()[{index}] must be "
                                f'{{"type": "function", "function": {{"name", "description", "parameters"}}}}, got {str(spec)[:120]}')
        return specs

    # ------------------------------------------------------------------ asking the model
    def _ask(self) -> str | dict[str, Any]:
        history = self._history
        reply_action: Any = ""
        for attempt in range(self.max_reprompts + 1):
            request: dict[str, Any] = {"model": self.model, "messages": history.messages(), **self.sampling}
            if self.framework.uses_tools:
                request["tools"] = self._tools()
            if self.extra_body:
                request["extra_body"] = self.extra_body
            message = self._complete(request).choices[0].message
            content = message.content or ""
            calls = [{"id": c.id, "function": {"name": c.function.name, "arguments": c.function.arguments}}
                     for c in (message.tool_calls or []) if getattr(c, "function", None) is not None]
            if self.framework.uses_tools and calls:
                actions, problems = [], []
                for call in calls:
                    try:
                        actions.append((call["id"], tool_call_action(self._env, call["function"]["name"], call["function"]["arguments"])))
                    except ToolCallError as exc:
                        problems.append((call, str(exc)))
                history.add_assistant(content, calls)
                if not problems:
                    (self._pending_call, first), self._queued = actions[0], actions[1:]
                    return first
                for call in calls:  # every id must be answered before the next request
                    error = next((p for c, p in problems if c is call), "Not run: another call of this reply was malformed.")
                    history.add_tool_result(call["id"], f"Error: {error}")
                bad_call = problems[0][0]
                reply_action = {"name": bad_call["function"]["name"], "arguments": bad_call["function"]["arguments"]}
                error_text = problems[0][1]
            elif content.strip():
                history.add_assistant(content)
                return content
            else:
                history.add_assistant(content)
                reply_action = content
                error_text = ("Your reply was empty." if not calls else
                              f"This set-up ({self.framework.name}) takes the action as the text of your reply, not as a function call.")
            if attempt < self.max_reprompts:
                self._ledger.reprompts += 1
                history.add_user(f"Your reply could not be used as an action: {error_text} Reply again with exactly one valid action.")
        # Out of re-prompts: send the last reply as it is; the env answers with its own error observation.
        self._pending_call = None
        return reply_action

    def _complete(self, request: dict[str, Any]) -> ChatCompletion:
        key = ResponseCache.key(request) if self.cache else None
        cached = self.cache.get(key) if self.cache else None
        if cached is not None:
            response = ChatCompletion.model_validate(cached)
            self._ledger.cached_calls += 1
        elif self.cache_mode == "replay":
            raise InfrastructureFailure(f"response cache {self.cache.folder}: no entry for this request (key {key[:12]}…) "
                                        "and cache_mode='replay' allows no call to the endpoint", kind="cache_miss")
        else:
            response = self._call_endpoint(request)
            if self.cache:
                self.cache.put(key, response.model_dump(mode="json", exclude_unset=True))
        self._count(response)
        if not response.choices:
            raise InfrastructureFailure(f"{self._endpoint()}: the completion has no choices", kind="bad_response")
        return response

    def _count(self, response: ChatCompletion) -> None:
        ledger = self._ledger
        ledger.calls += 1
        usage = response.usage
        prompt = int(getattr(usage, "prompt_tokens", 0) or 0)
        completion = int(getattr(usage, "completion_tokens", 0) or 0)
        ledger.prompt_tokens += prompt
        ledger.completion_tokens += completion
        ledger.total_tokens += prompt + completion
        if ledger.cost_usd is not None:
            price_prompt, price_completion = (p or 0.0 for p in self.prices)
            ledger.cost_usd += (prompt * price_prompt + completion * price_completion) / 1_000_000

    def _endpoint(self) -> str:
        return self.base_url or "the default OpenAI endpoint"

    def _client_for_calls(self) -> openai.OpenAI:
        if self._client is None:
            # The client's own retries are off: tenacity below retries, counts and backs off.
            self._client = openai.OpenAI(base_url=self.base_url, api_key=self._api_key or "EMPTY",
                                         timeout=self.timeout, max_retries=0)
        return self._client

    def _call_endpoint(self, request: dict[str, Any]) -> ChatCompletion:
        client = self._client_for_calls()

        def count_retry(state: tenacity.RetryCallState) -> None:
            self._ledger.retries += 1

        retrying = tenacity.Retrying(
            stop=tenacity.stop_after_attempt(self.retries + 1),
            wait=self._wait,
            retry=tenacity.retry_if_exception(_transient),
            before_sleep=count_retry,
            reraise=True,
        )
        # The plain-JSON request goes out as it is: ``chat.completions.create`` would first walk the whole
        # history through the client's TypedDict transform (~80 ms CPU a call for 30 messages), which changes
        # nothing in plain dicts. Same client, retries, errors and response type.
        body = {key: value for key, value in request.items() if key != "extra_body"}
        body.update(request.get("extra_body") or {})

        def create() -> ChatCompletion:
            return client.post("/chat/completions", body=body, cast_to=ChatCompletion, options={"timeout": self.timeout})

        try:
            return retrying(create)
        except openai.APIStatusError as exc:
            status = exc.status_code
            if status in _TRANSIENT_STATUSES or status >= 500:
                raise InfrastructureFailure(f"{self._endpoint()}: HTTP {status} after {self.retries + 1} tries: {_brief(exc)}",
                                            kind=f"http_{status}") from exc
            if status in _CONFIG_STATUSES:
                raise InfrastructureFailure(f"{self._endpoint()}: HTTP {status} for model {self.model!r} (check --base-url, "
                                            f"--model and the API key): {_brief(exc)}", kind=f"http_{status}") from exc
            raise RequestRejected(f"{self._endpoint()}: the request was rejected (HTTP {status}): {_brief(exc)}") from exc
        except openai.APITimeoutError as exc:
            raise InfrastructureFailure(f"{self._endpoint()}: no answer within {self.timeout:g} s, {self.retries + 1} tries",
                                        kind="timeout") from exc
        except openai.APIConnectionError as exc:
            raise InfrastructureFailure(f"{self._endpoint()}: cannot connect after {self.retries + 1} tries: {_brief(exc)}",
                                        kind="connection") from exc

    def _wait(self, state: tenacity.RetryCallState) -> float:
        """Exponential backoff with jitter, at least the server's Retry-After, at most ``backoff_max``."""
        exponential = tenacity.wait_exponential(multiplier=self.backoff, max=self.backoff_max)(state) \
            + tenacity.wait_random(0, self.backoff)(state)
        retry_after = 0.0
        error = state.outcome.exception() if state.outcome else None
        response = getattr(error, "response", None)
        if response is not None:
            try:
                retry_after = float(response.headers.get("retry-after", 0) or 0)
            except ValueError:
                retry_after = 0.0
        return min(self.backoff_max, max(exponential, retry_after))


def _transient(error: BaseException) -> bool:
    if isinstance(error, openai.APIStatusError):
        return error.status_code in _TRANSIENT_STATUSES or error.status_code >= 500
    return isinstance(error, (openai.APITimeoutError, openai.APIConnectionError))


def _brief(error: BaseException) -> str:
    return " ".join(str(error).split())[:300]


def _call_with_framework(method: Callable[..., Any], framework: str) -> Any:
    """``method(framework=...)`` when the env's method takes the framework (e.g. a grammar subset per
    set-up), else ``method()``."""
    try:
        parameters = inspect.signature(method).parameters
    except (TypeError, ValueError):
        return method()
    if "framework" in parameters or any(p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()):
        return method(framework=framework)
    return method()
