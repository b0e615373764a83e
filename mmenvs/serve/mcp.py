"""``mmenvs serve --mcp``: an episode's tools over MCP (the official ``mcp`` SDK, streamable HTTP at ``/mcp/``).

One MCP session is one server session (one env in its worker process, as for a WebSocket), opened on
the session's first tool request and reaped by the server's idle reaper like any other; a reaped
session's id answers 404 afterwards (MCP's "start a new session"). Tools:

* ``reset`` (``task_id``, ``seed``: both optional) starts an episode;
* ``act`` (``action``: a string) sends a text action: a final answer, a reply, code;
* the env's own ``tool_specs()`` (MacAgent: ``framework="hybrid"``, computer use + bash + AppleScript),
  with the same JSON schemas the LLM harness sends, turned into env actions by ``tool_call_action``.
  MMToolSandbox's list follows its working set: when it changes after a call the server sends
  ``notifications/tools/list_changed`` (the SDK's list-changed notification) and ``tools/list`` answers
  the new set.

A call answers the observation as text content and its image(s) as image content, and ``reward``,
``done``, ``terminated``, ``truncated``, ``score``, ``task_id``, ``action_error`` and ``info`` as
structured content; ``isError`` is set when the env refused the action (an unknown tool, bad
arguments, a step after the episode ended), never a protocol crash.

The server speaks MCP's session (handshake) era only: a ``server/discover`` probe of the stateless
2026 era is answered "unsupported version, use one of the handshake versions", which the SDK's own
client takes as "initialize instead" (sessions are what holds an env between calls).
"""

from __future__ import annotations

import collections
import contextlib
import json
import time
from typing import TYPE_CHECKING, Any, AsyncIterator

import mcp_types as types
from mcp.server import NotificationOptions, Server
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from mcp.shared.exceptions import MCPError
from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS
from starlette.datastructures import Headers
from starlette.responses import JSONResponse

from mmenvs.serve.sessions import CapacityError, Session
from mmenvs.serve.workers import WorkerDied, WorkerError

if TYPE_CHECKING:
    from mmenvs.serve.app import ServeApp

#: The MCP tools the server adds to the env's own.
RESET_TOOL, ACT_TOOL = "reset", "act"
_SESSION_HEADER = "mcp-session-id"
#: How many ended MCP session ids are remembered (to answer them 404 rather than open a new env).
_ENDED_MEMORY = 10_000


def _own_tools() -> list[types.Tool]:
    reset = types.Tool(
        name=RESET_TOOL,
        description="Start a new episode (call this first). task_id: one of the env's task ids (optional); "
                    "seed: an integer (optional, picks the task when no task_id is given). Returns the first "
                    "observation.",
        input_schema={"type": "object", "properties": {
            "task_id": {"type": "string", "description": "a task id of the served env"},
            "seed": {"type": "integer", "description": "the episode's seed"}}, "additionalProperties": False})
    act = types.Tool(
        name=ACT_TOOL,
        description="Send a text action to the env: a final answer, a reply to the user, or code (whatever the "
                    "task's instruction asks for that is not one of the other tools).",
        input_schema={"type": "object", "properties": {"action": {"type": "string", "description": "the action text"}},
                      "required": ["action"], "additionalProperties": False})
    return [reset, act]


def _mcp_tool(spec: dict[str, Any]) -> types.Tool:
    """An OpenAI function spec (``tool_specs()``) as an MCP tool with the same name and JSON schema."""
    function = spec["function"]
    return types.Tool(name=function["name"], description=function.get("description"),
                      input_schema=function.get("parameters") or {"type": "object", "properties": {}})


def call_result(data: dict[str, Any], image_format: str) -> types.CallToolResult:
    """A worker's step RESULT (``protocol.step_result``) as an MCP tool result."""
    from mmenvs.wrappers.chat import decode_data_url

    observation, info = data["observation"], data.get("info", {})
    texts = [f"## {key}\n{value}" if key != "text" else value for key, value in observation.items()
             if isinstance(value, str) and value and not value.startswith("data:image/")]
    content: list[types.TextContent | types.ImageContent] = [types.TextContent(type="text", text="\n\n".join(texts))]
    for value in observation.values():
        if isinstance(value, str) and value.startswith("data:image/"):
            mime, _ = decode_data_url(value)
            content.append(types.ImageContent(type="image", data=value.split(",", 1)[1], mime_type=mime))
    error = info.get("action_error")
    structured = {"reward": data["reward"], "done": data["done"], "terminated": data["terminated"],
                  "truncated": data["truncated"], "score": info.get("score"), "task_id": info.get("task_id"),
                  "action_error": error, "info": info}
    return types.CallToolResult(content=content, structured_content=structured, is_error=bool(error))


def _error_result(message: str) -> types.CallToolResult:
    return types.CallToolResult(content=[types.TextContent(type="text", text=message)], is_error=True)


class _SessionServer(Server):
    """The low-level server, advertising ``tools.listChanged`` (MMToolSandbox's list moves)."""

    def create_initialization_options(self, notification_options: NotificationOptions | None = None,
                                      *args: Any, **kwargs: Any) -> Any:
        return super().create_initialization_options(notification_options or NotificationOptions(tools_changed=True),
                                                     *args, **kwargs)


class McpBridge:
    """The MCP endpoint of a ``ServeApp``: ``asgi`` is mounted at ``/mcp``, ``run()`` entered in its lifespan."""

    def __init__(self, app: "ServeApp") -> None:
        self.app = app
        self.sessions: dict[str, Session] = {}  # MCP session id -> server session
        self.tool_names: dict[str, tuple[str, ...]] = {}  # MCP session id -> the env tools it was last shown
        self._ended: collections.OrderedDict[str, str] = collections.OrderedDict()  # id -> why
        self.server = _SessionServer("mmenvs-" + app.config.env_id, version=_version(),
                                     instructions=f"Tools of one {app.config.env_id} episode: call '{RESET_TOOL}' first, "
                                                  f"then the env's tools; '{ACT_TOOL}' sends a text action.",
                                     on_list_tools=self._list_tools, on_call_tool=self._call_tool)
        self.server.add_request_handler("server/discover", types.RequestParams, self._refuse_discover)
        host = app.config.host
        loopback = host in ("127.0.0.1", "localhost", "::1")
        # DNS-rebinding protection for a loopback server (a web page must not reach it through a name it controls).
        security = TransportSecuritySettings(
            enable_dns_rebinding_protection=True, allowed_hosts=["127.0.0.1:*", "localhost:*", "[::1]:*"],
            allowed_origins=["http://127.0.0.1:*", "http://localhost:*", "http://[::1]:*"]) if loopback else \
            TransportSecuritySettings(enable_dns_rebinding_protection=False)
        # the server's reaper ends idle sessions (env and MCP id together); the SDK's own timeout only backs it up
        self._transport_timeout = 2 * app.config.idle_timeout + 5
        # MCP session id -> its last request: the SDK keeps a transport per id until its timeout, and not every
        # SDK release caps their number (verifiers pins mcp 2.0, which has no max_sessions), so the cap is ours
        self._transports: dict[str, float] = {}
        self.manager = StreamableHTTPSessionManager(
            app=self.server, security_settings=security, session_idle_timeout=self._transport_timeout,
            max_request_body_size=app.config.max_message_bytes)

    @contextlib.asynccontextmanager
    async def run(self) -> AsyncIterator[None]:
        async with self.manager.run():
            yield

    # ------------------------------------------------------------------------------ transport
    async def asgi(self, scope: Any, receive: Any, send: Any) -> None:
        """The SDK's streamable HTTP app behind the server's token check and session bookkeeping."""
        if scope["type"] != "http":
            return
        headers = Headers(scope=scope)
        if not self.app.authorized(headers):
            await self.app._denied()(scope, receive, send)
            return
        mcp_id = headers.get(_SESSION_HEADER)
        if mcp_id is not None and mcp_id in self._ended:
            await JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
                "code": types.INVALID_REQUEST, "message": f"Session not found: it ended ({self._ended[mcp_id]}); "
                                                          f"initialize a new MCP session"}}, status_code=404)(scope, receive, send)
            return
        now = time.monotonic()
        for seen_id, seen in list(self._transports.items()):
            if now - seen > self._transport_timeout:  # the SDK has ended that transport too
                del self._transports[seen_id]
        if mcp_id is None and scope.get("method") == "POST" and len(self._transports) >= self.app.config.max_sessions:
            await JSONResponse({"jsonrpc": "2.0", "id": None, "error": {
                "code": types.INTERNAL_ERROR, "message": f"the server holds its maximum of {self.app.config.max_sessions} "
                                                         f"MCP sessions; end one (DELETE) or retry later"}},
                               status_code=503)(scope, receive, send)
            return
        if mcp_id in self._transports:
            self._transports[mcp_id] = now

        async def send_noting_new_sessions(message: Any) -> None:
            if message.get("type") == "http.response.start" and mcp_id is None:
                new_id = Headers(raw=message.get("headers", [])).get(_SESSION_HEADER)
                if new_id:
                    self._transports[new_id] = time.monotonic()
            await send(message)

        await self.manager.handle_request(scope, receive, send_noting_new_sessions)
        if scope.get("method") == "DELETE" and mcp_id is not None:  # the client ended its MCP session
            await self._end(mcp_id, "the client ended the MCP session")

    async def _end(self, mcp_id: str, reason: str) -> None:
        session = self.sessions.pop(mcp_id, None)
        self.tool_names.pop(mcp_id, None)
        self._remember_ended(mcp_id, reason)
        if session is not None:
            await self.app.manager.close(session, reason)

    def _remember_ended(self, mcp_id: str, reason: str) -> None:
        self._transports.pop(mcp_id, None)
        self._ended[mcp_id] = reason
        while len(self._ended) > _ENDED_MEMORY:
            self._ended.popitem(last=False)

    def _session(self, ctx: Any) -> tuple[str, Session]:
        request = getattr(ctx, "request", None)
        mcp_id = request.headers.get(_SESSION_HEADER) if request is not None else None
        if not mcp_id:
            raise MCPError(types.INVALID_REQUEST, "no MCP session: initialize first (streamable HTTP with a session id)")
        session = self.sessions.get(mcp_id)
        if session is None or session.closed:
            if mcp_id in self._ended:
                raise MCPError(types.INVALID_REQUEST, f"this MCP session ended ({self._ended[mcp_id]})")
            try:
                session = self.app.manager.open("mcp", self._on_reaped(mcp_id))
            except CapacityError as exc:
                raise MCPError(types.INTERNAL_ERROR, str(exc)) from None
            self.sessions[mcp_id] = session
        return mcp_id, session

    def _on_reaped(self, mcp_id: str) -> Any:
        async def on_close(reason: str) -> None:  # the reaper (or a shutdown) closed the server session
            self.sessions.pop(mcp_id, None)
            self.tool_names.pop(mcp_id, None)
            self._remember_ended(mcp_id, reason)
        return on_close

    # ------------------------------------------------------------------------------ handlers
    async def _refuse_discover(self, ctx: Any, params: Any) -> Any:
        raise MCPError(types.UNSUPPORTED_PROTOCOL_VERSION,
                       "this server keeps an env per MCP session: use the initialize handshake",
                       {"supported": list(HANDSHAKE_PROTOCOL_VERSIONS)})

    async def _env_tools(self, session: Session) -> list[dict[str, Any]]:
        if not self.app.description.get("has_tools"):
            return []
        return await self.app.manager.call(session, "tools")

    async def _list_tools(self, ctx: Any, params: Any) -> types.ListToolsResult:
        mcp_id, session = self._session(ctx)
        try:
            specs = await self._env_tools(session)
        except (WorkerDied, WorkerError, TimeoutError) as exc:
            raise MCPError(types.INTERNAL_ERROR, f"cannot list the env's tools: {exc}") from None
        self.tool_names[mcp_id] = tuple(spec["function"]["name"] for spec in specs)
        own = {tool.name for tool in _own_tools()}
        return types.ListToolsResult(tools=_own_tools() + [_mcp_tool(s) for s in specs if s["function"]["name"] not in own])

    async def _call_tool(self, ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        mcp_id, session = self._session(ctx)
        name, arguments = params.name, dict(params.arguments or {})
        image_format = self.app.config.image_format
        try:
            if name == RESET_TOOL:
                unknown = set(arguments) - {"task_id", "seed"}
                seed = arguments.get("seed")
                if unknown or (seed is not None and (isinstance(seed, bool) or not isinstance(seed, int))) or \
                        not isinstance(arguments.get("task_id", ""), str):
                    return _error_result(f"reset takes 'task_id' (a string) and 'seed' (an integer), got "
                                         f"{json.dumps(arguments)[:300]}")
                options = {"task_id": arguments["task_id"]} if arguments.get("task_id") else None
                data = await self.app.manager.call(session, "reset", seed, options, None)
            elif name == ACT_TOOL:
                if set(arguments) != {"action"} or not isinstance(arguments["action"], str):
                    return _error_result(f"act takes one argument 'action' (a string), got {json.dumps(arguments)[:300]}")
                data = await self.app.manager.call(session, "step", arguments["action"])
            else:
                known = self.tool_names.get(mcp_id)
                if known is None or name not in known:  # the working set may have moved since the last list
                    known = tuple(spec["function"]["name"] for spec in await self._env_tools(session))
                    self.tool_names[mcp_id] = known
                if name not in known:
                    return _error_result(f"unknown tool {name!r}: call tools/list for the tools callable now "
                                         f"({', '.join((RESET_TOOL, ACT_TOOL) + known)[:600]})")
                data = await self.app.manager.call(session, "call_tool", name, arguments)
        except WorkerDied as exc:
            await self._end(mcp_id, str(exc))
            return _error_result(f"{exc}")
        except (WorkerError, TimeoutError) as exc:
            return _error_result(str(exc))
        result = call_result(data, image_format)
        await self._announce_tool_changes(ctx, mcp_id, session)
        return result

    async def _announce_tool_changes(self, ctx: Any, mcp_id: str, session: Session) -> None:
        """Send the list-changed notification when the env's callable tools moved (MMToolSandbox's working set)."""
        if not self.app.description.get("has_tools"):
            return
        try:
            names = tuple(spec["function"]["name"] for spec in await self._env_tools(session))
        except (WorkerDied, WorkerError, TimeoutError):
            return
        previous = self.tool_names.get(mcp_id)
        self.tool_names[mcp_id] = names
        if previous is not None and previous != names:
            await ctx.session.send_notification(types.ToolListChangedNotification(), related_request_id=ctx.request_id)


def _version() -> str:
    try:
        from importlib.metadata import version

        return version("mmenvs")
    except Exception:
        return ""
