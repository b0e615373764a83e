"""A real OpenAI-compatible HTTP server on the loopback interface, answering from a scripted policy.

The tests of the LLM agent drive the official ``openai`` client against it, and users can too (to
check a harness, a cache or a prompt without spending tokens)::

    from mmenvs.baselines.llm.testserver import OpenAITestServer, replay

    with OpenAITestServer(replay("```python\\npyautogui.click(10, 10)\\n```", "DONE")) as server:
        agent = load_agent("llm", model="scripted", base_url=server.base_url, api_key="unused")
        ...

``POST /v1/chat/completions`` calls ``policy(request_body)``, which returns a reply: a string (the
assistant's text) or a dict ``{"content": str | None, "tool_calls": [{"name": ..., "arguments": {...}}]}``.
Answers carry ``usage`` (a deterministic count: words of the text parts, plus ``IMAGE_TOKENS`` per
image) and tool-call ids ``call_0``, ``call_1``, …. Faults are queued per request: ``fail(429, times=2)``,
``hang(times=1, seconds=30)`` (no answer until the client gives up), ``drop()`` (connection closed
without an answer), and ``die()`` stops the server so later requests are refused; a policy may also
raise ``ServerFault(status)`` to fail one request it recognises. ``GET /v1/models``
lists the one model. Only the standard library is used (``http.server`` in a thread).
"""

from __future__ import annotations

import json
import socket
import threading
from collections import deque
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Callable, Mapping, Union

#: Prompt tokens counted per image part (a fixed, deterministic stand-in for a real tokenizer).
IMAGE_TOKENS = 85

Reply = Union[str, Mapping[str, Any]]
Policy = Callable[[dict[str, Any]], Reply]


class ServerFault(Exception):
    """Raised by a policy to answer this request with HTTP ``status`` (a per-request fault, e.g. for
    one task only); ``retry_after`` adds a Retry-After header."""

    def __init__(self, status: int = 500, retry_after: float | None = None) -> None:
        super().__init__(f"HTTP {status}")
        self.status, self.retry_after = int(status), retry_after


class PolicyExhausted(RuntimeError):
    """A scripted policy has no reply left (the server answers 400, which clients do not retry)."""


def replay(*replies: Reply) -> Policy:
    """A policy giving ``replies`` in order, one per request; a request after the last gets a 400."""
    queue = deque(replies)
    lock = threading.Lock()

    def policy(request: dict[str, Any]) -> Reply:
        with lock:
            if not queue:
                raise PolicyExhausted(f"the scripted policy has no reply left ({len(replies)} were given)")
            return queue.popleft()

    return policy


def count_tokens(text: str) -> int:
    """The server's token count of ``text``: its whitespace-separated words."""
    return len(str(text).split())


def prompt_tokens(request: Mapping[str, Any]) -> int:
    """Tokens of a request: words of every text part and string content, ``IMAGE_TOKENS`` per image,
    and the words of the tool schemas' JSON."""
    total = 0
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, str):
            total += count_tokens(content)
        elif isinstance(content, list):
            for part in content:
                if part.get("type") == "text":
                    total += count_tokens(part.get("text", ""))
                elif part.get("type") == "image_url":
                    total += IMAGE_TOKENS
        for call in message.get("tool_calls") or []:
            total += count_tokens(call.get("function", {}).get("arguments", ""))
    if request.get("tools"):
        total += count_tokens(json.dumps(request["tools"]))
    return total


def image_urls(request: Mapping[str, Any]) -> list[str]:
    """The ``image_url`` URLs of a request's messages, in order (for tests and policies)."""
    urls = []
    for message in request.get("messages", []):
        content = message.get("content")
        if isinstance(content, list):
            urls += [p["image_url"]["url"] for p in content if p.get("type") == "image_url"]
    return urls


@dataclass
class _Fault:
    kind: str  # "status" | "hang" | "drop"
    status: int = 500
    seconds: float = 0.0
    retry_after: float | None = None


class OpenAITestServer:
    """An OpenAI-compatible chat completions endpoint on ``127.0.0.1`` (ephemeral port by default).

    ``requests`` holds every request body received (faulted ones too), ``answered`` the bodies that got
    a completion, ``usage`` the summed usage of those answers. Use as a context manager or call
    ``start()`` / ``stop()``.
    """

    def __init__(self, policy: Policy, *, host: str = "127.0.0.1", port: int = 0, model: str = "scripted") -> None:
        self.policy = policy
        self.host, self.port, self.model = host, port, model
        self.requests: list[dict[str, Any]] = []
        self.answered: list[dict[str, Any]] = []
        self.usage = {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        self._faults: deque[_Fault] = deque()
        self._lock = threading.Lock()
        self._release = threading.Event()  # set on stop: hanging handlers give up at once
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._connections: set[socket.socket] = set()
        self._call_ids = 0
        self._completion_ids = 0

    # ------------------------------------------------------------------ life cycle
    def start(self) -> "OpenAITestServer":
        """Bind and serve in a background thread; ``base_url`` is valid from here on."""
        if self._server is not None:
            raise RuntimeError("OpenAITestServer.start: already running")
        self._release.clear()
        self._server = ThreadingHTTPServer((self.host, self.port), _make_handler(self))
        self._server.daemon_threads = True
        self.port = self._server.server_address[1]
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name=f"openai-test-server:{self.port}", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving: open connections are closed, hanging requests released, the port freed."""
        server, self._server = self._server, None
        if server is None:
            return
        self._release.set()
        server.shutdown()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            try:
                connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=10)
            self._thread = None

    def die(self) -> None:
        """The endpoint goes away for good: every later request is refused (connection refused)."""
        self.stop()

    @property
    def running(self) -> bool:
        return self._server is not None

    @property
    def base_url(self) -> str:
        """What the openai client takes as ``base_url`` (``http://127.0.0.1:PORT/v1``)."""
        if self._server is None:
            raise RuntimeError("OpenAITestServer.base_url: start the server first")
        return f"http://{self.host}:{self.port}/v1"

    def __enter__(self) -> "OpenAITestServer":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ faults
    def fail(self, status: int = 500, times: int = 1, retry_after: float | None = None) -> None:
        """The next ``times`` requests get HTTP ``status`` (429, 500, 503, …) with an OpenAI error body."""
        self._queue(_Fault("status", status=int(status), retry_after=retry_after), times)

    def hang(self, times: int = 1, seconds: float = 30.0) -> None:
        """The next ``times`` requests get no answer for ``seconds`` (past the client's timeout), then
        their connection is closed."""
        self._queue(_Fault("hang", seconds=float(seconds)), times)

    def drop(self, times: int = 1) -> None:
        """The next ``times`` requests have their connection closed without an answer."""
        self._queue(_Fault("drop"), times)

    def _queue(self, fault: _Fault, times: int) -> None:
        with self._lock:
            self._faults.extend([fault] * int(times))

    # ------------------------------------------------------------------ answering
    def _next_fault(self) -> _Fault | None:
        with self._lock:
            return self._faults.popleft() if self._faults else None

    def _complete(self, request: dict[str, Any]) -> dict[str, Any]:
        reply = self.policy(request)
        if isinstance(reply, str):
            reply = {"content": reply}
        content = reply.get("content")
        tool_calls = []
        with self._lock:
            for call in reply.get("tool_calls") or []:
                arguments = call.get("arguments", {})
                if not isinstance(arguments, str):
                    arguments = json.dumps(arguments, ensure_ascii=False)
                call_id = call.get("id") or f"call_{self._call_ids}"
                self._call_ids += 1
                tool_calls.append({"id": call_id, "type": "function", "function": {"name": call["name"], "arguments": arguments}})
            completion_id = f"chatcmpl-{self._completion_ids}"
            self._completion_ids += 1
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if tool_calls:
            message["tool_calls"] = tool_calls
        completion = count_tokens(content or "") + sum(count_tokens(c["function"]["arguments"]) for c in tool_calls)
        usage = {"prompt_tokens": prompt_tokens(request), "completion_tokens": completion}
        usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
        with self._lock:
            self.answered.append(request)
            for key, value in usage.items():
                self.usage[key] += value
        return {"id": completion_id, "object": "chat.completion", "created": 0, "model": request.get("model", self.model),
                "choices": [{"index": 0, "message": message, "logprobs": None,
                             "finish_reason": "tool_calls" if tool_calls else "stop"}],
                "usage": usage}


def _error_body(message: str, kind: str, code: str | None = None) -> dict[str, Any]:
    return {"error": {"message": message, "type": kind, "param": None, "code": code}}


def _make_handler(owner: OpenAITestServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as the openai client (httpx) expects

        def setup(self) -> None:
            super().setup()
            with owner._lock:
                owner._connections.add(self.connection)

        def finish(self) -> None:
            with owner._lock:
                owner._connections.discard(self.connection)
            try:
                super().finish()
            except OSError:
                pass

        def log_message(self, format: str, *args: Any) -> None:  # quiet: tests read state, not logs
            pass

        def do_GET(self) -> None:
            if self.path.rstrip("/") == "/v1/models":
                self._send(200, {"object": "list", "data": [{"id": owner.model, "object": "model", "created": 0, "owned_by": "mmenvs"}]})
            else:
                self._send(404, _error_body(f"no route GET {self.path}", "not_found_error"))

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            if self.path.rstrip("/") != "/v1/chat/completions":
                self._send(404, _error_body(f"no route POST {self.path}", "not_found_error"))
                return
            try:
                request = json.loads(raw or b"{}")
                if not isinstance(request, dict) or not isinstance(request.get("messages"), list):
                    raise ValueError("the body must be a JSON object with a 'messages' list")
            except ValueError as exc:
                self._send(400, _error_body(f"bad request: {exc}", "invalid_request_error"))
                return
            with owner._lock:
                owner.requests.append(request)
            fault = owner._next_fault()
            if fault is not None and fault.kind == "hang":
                owner._release.wait(fault.seconds)
                self.close_connection = True
                return
            if fault is not None and fault.kind == "drop":
                self.close_connection = True
                try:
                    self.connection.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                return
            if fault is not None:
                self._fault(fault)
                return
            try:
                body = owner._complete(request)
            except ServerFault as exc:
                self._fault(_Fault("status", status=exc.status, retry_after=exc.retry_after))
                return
            except PolicyExhausted as exc:
                self._send(400, _error_body(str(exc), "invalid_request_error", "policy_exhausted"))
                return
            except Exception as exc:  # a broken policy is the test's bug: say so, with a status clients do not retry
                self._send(400, _error_body(f"scripted policy raised {type(exc).__name__}: {exc}", "invalid_request_error", "policy_error"))
                return
            self._send(200, body)

        def _fault(self, fault: _Fault) -> None:
            kind = "rate_limit_error" if fault.status == 429 else "server_error"
            headers = {"Retry-After": f"{fault.retry_after:g}"} if fault.retry_after is not None else {}
            self._send(fault.status, _error_body(f"injected fault: HTTP {fault.status}", kind), headers)

        def _send(self, status: int, body: Mapping[str, Any], headers: Mapping[str, str] | None = None) -> None:
            data = json.dumps(body).encode("utf-8")
            try:
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for name, value in (headers or {}).items():
                    self.send_header(name, value)
                self.end_headers()
                self.wfile.write(data)
            except OSError:  # the client gave up (timeout) or the server is stopping
                self.close_connection = True

    return Handler


def serve(policy: Policy, *, host: str = "127.0.0.1", port: int = 0) -> OpenAITestServer:
    """Start a server for ``policy`` and return it (call ``stop()`` when done)."""
    return OpenAITestServer(policy, host=host, port=port).start()


def tool_call(name: str, **arguments: Any) -> dict[str, Any]:
    """A reply holding one tool call (for scripted policies)."""
    return {"content": None, "tool_calls": [{"name": name, "arguments": arguments}]}


def tool_calls(*calls: tuple[str, Mapping[str, Any]], content: str | None = None) -> dict[str, Any]:
    """A reply holding several tool calls ``(name, arguments)`` in one assistant message."""
    return {"content": content, "tool_calls": [{"name": n, "arguments": dict(a)} for n, a in calls]}


__all__ = ["IMAGE_TOKENS", "OpenAITestServer", "PolicyExhausted", "ServerFault", "count_tokens", "image_urls", "prompt_tokens",
           "replay", "serve", "tool_call", "tool_calls"]
