"""``mmenvs serve``: any registered env id as an OpenEnv-compatible service (Starlette + uvicorn).

Endpoints: ``GET /health`` (open), ``GET /schema``, ``POST /reset``, ``POST /step``, ``GET /state``,
``POST /close`` and the WebSocket ``/ws`` (one connection owns one env for its lifetime), plus
``/mcp`` (MCP streamable HTTP) with ``--mcp``. With a token every endpoint but ``/health`` needs
``Authorization: Bearer TOKEN``. HTTP sessions: ``/reset`` without ``session_id`` opens one and
answers its ``session_id``; ``/step``, ``/state`` and ``/close`` name it.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import hmac
import ipaddress
import json
import socket
import sys
from typing import Any, AsyncIterator

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.websockets import WebSocket, WebSocketDisconnect, WebSocketState

from mmenvs.serve import protocol
from mmenvs.serve.protocol import ProtocolError, error_message
from mmenvs.serve.sessions import CapacityError, ServeConfig, Session, SessionManager, UnknownSession
from mmenvs.serve.workers import WorkerDied, WorkerError, describe_env, shutdown_forkserver

#: WebSocket close code for "policy violation" (bad token) and "try again later" (server full).
_WS_POLICY, _WS_FULL, _WS_IDLE = 1008, 1013, 4408


def _error(status: int, message: str, code: str, **extra: Any) -> JSONResponse:
    return JSONResponse({"detail": message, "code": code, **extra}, status_code=status)


class ServeApp:
    """The ASGI app and its session manager, for one env id."""

    def __init__(self, config: ServeConfig, description: dict[str, Any] | None = None) -> None:
        self.config = config
        self.description = description or describe_env(config.env_id, config.env_kwargs)
        self.observation_space = protocol.space_from_json(self.description["observation_space"])
        self.action_space = protocol.space_from_json(self.description["action_space"])
        self.manager = SessionManager(config)
        self.mcp = None
        routes = [Route("/health", self.health), Route("/schema", self.schema), Route("/reset", self.reset, methods=["POST"]),
                  Route("/step", self.step, methods=["POST"]), Route("/state", self.state),
                  Route("/close", self.close, methods=["POST"]), WebSocketRoute("/ws", self.websocket)]
        if config.mcp:
            from mmenvs.serve.mcp import McpBridge

            self.mcp = McpBridge(self)
            routes.append(Mount("/mcp", app=self.mcp.asgi))
        self.app = Starlette(routes=routes, lifespan=self._lifespan)

    @contextlib.asynccontextmanager
    async def _lifespan(self, app: Starlette) -> AsyncIterator[None]:
        self.manager.start()
        async with contextlib.AsyncExitStack() as stack:
            if self.mcp is not None:
                await stack.enter_async_context(self.mcp.run())
            try:
                yield
            finally:
                await self.manager.shutdown()

    # ------------------------------------------------------------------------------ helpers
    def authorized(self, headers: Any) -> bool:
        if not self.config.token:
            return True
        given = headers.get("authorization", "")
        scheme, _, value = given.partition(" ")
        return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), self.config.token.encode())

    def _denied(self) -> JSONResponse:
        return _error(401, "missing or wrong bearer token: send 'Authorization: Bearer <token>' (the value of the "
                           "server's --token-env variable)", "UNAUTHORIZED")

    async def _body(self, request: Request) -> dict[str, Any]:
        length = request.headers.get("content-length")
        limit = self.config.max_message_bytes
        if length is not None and length.isdigit() and int(length) > limit:
            raise ProtocolError(f"request body of {length} bytes is over the server's limit of {limit} bytes",
                                code="MESSAGE_TOO_LARGE", status=413)
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > limit:
                raise ProtocolError(f"request body is over the server's limit of {limit} bytes",
                                    code="MESSAGE_TOO_LARGE", status=413)
        if not body.strip():
            return {}
        return protocol.parse_json_object(bytes(body), limit)

    async def _run(self, session: Session, command: str, *arguments: Any) -> Any:
        return await self.manager.call(session, command, *arguments)

    def schema_payload(self) -> dict[str, Any]:
        config = self.config
        return {"action": {"description": "the env's action: a string (text, code, a command) or a JSON object "
                                          "such as a tool call {\"name\": ..., \"arguments\": {...}}",
                           "oneOf": [{"type": "string"}, {"type": "object"}]},
                "observation": protocol.json_schema(self.observation_space, config.image_format),
                "state": {"type": "object", "properties": {"episode_id": {"type": ["string", "null"]},
                                                           "step_count": {"type": "integer"}}},
                "env_id": config.env_id, "env_kwargs": config.env_kwargs, "image_format": config.image_format,
                "spaces": {"observation": self.description["observation_space"],
                           "action": self.description["action_space"]},
                "metadata": self.description.get("metadata", {}), "mcp": config.mcp, "oracle": config.allow_oracle,
                "max_message_bytes": config.max_message_bytes}

    # ------------------------------------------------------------------------------ HTTP
    async def health(self, request: Request) -> JSONResponse:
        return JSONResponse({"status": "healthy", "env_id": self.config.env_id,
                             "sessions": len(self.manager.sessions), "max_sessions": self.config.max_sessions,
                             "reaped": self.manager.reaped})

    async def schema(self, request: Request) -> JSONResponse:
        if not self.authorized(request.headers):
            return self._denied()
        return JSONResponse(self.schema_payload())

    async def _handle(self, request: Request, action: str) -> JSONResponse:
        if not self.authorized(request.headers):
            return self._denied()
        try:
            if action == "state":
                data = {"session_id": request.query_params.get("session_id")}
            else:
                message = await self._body(request)
                data = message.get("data", message) if set(message) <= {"type", "data"} else message  # flat, or wrapped
                if not isinstance(data, dict):
                    raise ProtocolError("the request body must be a JSON object")
            if action == "reset":
                arguments = protocol.reset_arguments(data)
                if data.get("session_id") is not None:
                    session = self.manager.get(data["session_id"])
                else:
                    session = self.manager.open("http")
                try:
                    result = await self._run(session, "reset", arguments["seed"], arguments["options"],
                                             data.get("episode_id"))
                except Exception:
                    if data.get("session_id") is None:
                        await self.manager.close(session)
                    raise
                return JSONResponse({**result, "session_id": session.id})
            if "session_id" not in data or data["session_id"] is None:
                raise ProtocolError(f"{action} needs 'session_id' (the one /reset answered)")
            session = self.manager.get(data["session_id"])
            if action == "step":
                result = await self._run(session, "step", protocol.step_action(data))
                return JSONResponse({**result, "session_id": session.id})
            if action == "state":
                state = await self._run(session, "state") if session.worker else {"episode_id": None, "step_count": 0}
                return JSONResponse({**state, "session_id": session.id})
            await self.manager.close(session)
            return JSONResponse({"closed": session.id})
        except ProtocolError as exc:
            return _error(exc.status, str(exc), exc.code)
        except UnknownSession as exc:
            return _error(404, exc.args[0], "UNKNOWN_SESSION")
        except CapacityError as exc:
            return _error(503, str(exc), "CAPACITY_REACHED")
        except WorkerDied as exc:
            return _error(410, str(exc), "WORKER_DIED")
        except WorkerError as exc:
            return _error(400, str(exc), "EXECUTION_ERROR")
        except TimeoutError as exc:
            return _error(504, str(exc), "TIMEOUT")

    async def reset(self, request: Request) -> JSONResponse:
        return await self._handle(request, "reset")

    async def step(self, request: Request) -> JSONResponse:
        return await self._handle(request, "step")

    async def state(self, request: Request) -> JSONResponse:
        return await self._handle(request, "state")

    async def close(self, request: Request) -> JSONResponse:
        return await self._handle(request, "close")

    # ------------------------------------------------------------------------------ WebSocket
    async def websocket(self, websocket: WebSocket) -> None:
        if not self.authorized(websocket.headers):
            await websocket.close(code=_WS_POLICY, reason="missing or wrong bearer token")  # before accept: HTTP 403
            return

        async def on_close(reason: str) -> None:
            if websocket.application_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await websocket.send_text(json.dumps(error_message(f"session closed: {reason}", "SESSION_CLOSED")))
                    await websocket.close(code=_WS_IDLE, reason=reason[:120])

        try:
            session = self.manager.open("ws", on_close)
        except CapacityError as exc:
            await websocket.accept()
            await websocket.send_text(json.dumps(error_message(str(exc), "CAPACITY_REACHED",
                                                               max_sessions=self.config.max_sessions)))
            await websocket.close(code=_WS_FULL)
            return
        await websocket.accept()
        try:
            while not session.closed:
                raw = await websocket.receive()
                if raw["type"] == "websocket.disconnect":
                    break
                text = raw.get("text") if raw.get("text") is not None else raw.get("bytes") or b""
                reply = await self._ws_message(session, text)
                if reply is None:
                    break
                await websocket.send_text(json.dumps(reply))
        except (WebSocketDisconnect, RuntimeError):
            pass
        finally:
            await self.manager.close(session, "the client disconnected")
            if websocket.application_state == WebSocketState.CONNECTED:
                with contextlib.suppress(Exception):
                    await websocket.close()

    async def _ws_message(self, session: Session, raw: str | bytes) -> dict[str, Any] | None:
        try:
            message = protocol.parse_message(raw, self.config.max_message_bytes)
            kind, data = message.get("type"), message["data"]
            if kind == "reset":
                arguments = protocol.reset_arguments(data)
                result = await self._run(session, "reset", arguments["seed"], arguments["options"], data.get("episode_id"))
                return {"type": "observation", "data": result}
            if kind == "step":
                return {"type": "observation", "data": await self._run(session, "step", protocol.step_action(data))}
            if kind == "state":
                state = await self._run(session, "state") if session.worker else {"episode_id": None, "step_count": 0}
                return {"type": "state", "data": {**state, "worker_pid": session.worker.pid if session.worker else None}}
            if kind == "oracle":
                return {"type": "oracle", "data": {"action": await self._run(session, "oracle")}}
            if kind == "close":
                return None
            raise ProtocolError(f"Unknown message type: {kind!r} (expected reset, step, state or close)",
                                code="UNKNOWN_TYPE")
        except ProtocolError as exc:
            return error_message(str(exc), exc.code)
        except WorkerDied as exc:
            return error_message(str(exc), "WORKER_DIED")
        except WorkerError as exc:
            return error_message(str(exc), "EXECUTION_ERROR")
        except TimeoutError as exc:
            return error_message(str(exc), "TIMEOUT")
        except Exception as exc:  # a bug of ours must cost one message, not the session
            return error_message(f"internal error: {type(exc).__name__}: {exc}", "INTERNAL_ERROR")


# ---------------------------------------------------------------------------------- running
def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def check_host(host: str, *, allow_remote: bool, token: str | None) -> None:
    """Loopback by default: another address needs ``--allow-remote`` and a token."""
    if _is_loopback(host):
        return
    if not allow_remote:
        raise ValueError(f"--host {host} is not a loopback address: the server would take actions from the network. "
                         f"Pass --allow-remote together with --token-env VAR to do that on purpose")
    if not token:
        raise ValueError(f"--host {host} with --allow-remote needs a bearer token (--token-env VAR)")


def _silent_connection_guard(idle_timeout: float) -> type:
    """uvicorn's h11 protocol, closing a connection that has not sent a complete request line and
    headers within ``idle_timeout`` (a half-open or slow client holds no socket forever)."""
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class GuardedH11Protocol(H11Protocol):
        _silence_timer: asyncio.TimerHandle | None = None

        def connection_made(self, transport: Any) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._silence_timer = self.loop.call_later(idle_timeout, self._close_silent)

        def data_received(self, data: bytes) -> None:
            super().data_received(data)
            if self._silence_timer is not None and self.cycle is not None:  # a request began: h11 rules now
                self._silence_timer.cancel()
                self._silence_timer = None

        def connection_lost(self, exc: Exception | None) -> None:
            if self._silence_timer is not None:
                self._silence_timer.cancel()
                self._silence_timer = None
            super().connection_lost(exc)

        def _close_silent(self) -> None:
            self._silence_timer = None
            # After a WebSocket upgrade the transport belongs to the WebSocket protocol (the session reaper rules).
            if self.cycle is None and self.transport.get_protocol() is self and not self.transport.is_closing():
                self.transport.close()

    return GuardedH11Protocol


def listening_socket(host: str, port: int) -> socket.socket:
    """The server's bound, listening TCP socket (port 0: a free one)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    # proto=IPPROTO_TCP: asyncio sets TCP_NODELAY only on sockets that say so; without it Nagle held an HTTP
    # response's body behind its headers until the client's delayed ACK (~40 ms per keep-alive request)
    sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind((host, port))
    sock.listen(2048)
    sock.set_inheritable(True)
    return sock


def serve(config: ServeConfig, *, host: str = "127.0.0.1", port: int = 8000, allow_remote: bool = False) -> None:
    """Run the server until interrupted (prints the address it listens on, then one line per start-up fact)."""
    import uvicorn

    check_host(host, allow_remote=allow_remote, token=config.token)
    if config.image_format not in protocol.IMAGE_FORMATS:
        raise ValueError(f"--image-format must be one of {protocol.IMAGE_FORMATS}, got {config.image_format!r}")
    if config.max_sessions < 1 or config.idle_timeout <= 0:
        raise ValueError("--max-sessions must be at least 1 and --idle-timeout positive")
    try:
        app = ServeApp(dataclasses.replace(config, host=host))
        sock = listening_socket(host, port)
        bound = sock.getsockname()[1]
        uv_config = uvicorn.Config(
            app.app, log_level="warning", http=_silent_connection_guard(config.idle_timeout), ws="websockets-sansio",
            ws_max_size=2 * config.max_message_bytes + 4096, lifespan="on", timeout_keep_alive=5,
            # a pong may come as late as the session may idle: on a loaded machine (64 sessions on 2 busy cores)
            # a 20 s pong deadline closed live sessions (1011 keepalive ping timeout); dead peers are still dropped
            ws_ping_interval=min(20.0, config.idle_timeout), ws_ping_timeout=config.idle_timeout,
            backlog=2048)
        server = uvicorn.Server(uv_config)
        print(f"mmenvs serve: {config.env_id} on http://{host}:{bound} (WebSocket ws://{host}:{bound}/ws"
              f"{', MCP http://%s:%d/mcp/' % (host, bound) if config.mcp else ''})", flush=True)
        server.run(sockets=[sock])
    finally:
        shutdown_forkserver()
    sys.stdout.flush()
