"""``RemoteEnv``: a ``gymnasium.Env`` whose env runs in a ``mmenvs serve`` server, over its WebSocket
protocol (one connection = one session = one env on the server; see docs/serve.md).

    env = RemoteEnv("http://127.0.0.1:8000", "VTCBench-v0")
    obs, info = env.reset(seed=0)
    obs, reward, terminated, truncated, info = env.step('{"name": "...", "arguments": {...}}')

The spaces come from the server's ``/schema`` and equal the served env's; images arrive as PNG (exact)
or JPEG (lossy, same shape). A worker that died, a server that closed the session, or a timeout
raise ``RemoteEnvError``.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from typing import Any

import gymnasium as gym

from mmenvs.core.recorder import to_jsonable
from mmenvs.serve import protocol


class RemoteEnvError(RuntimeError):
    """The server could not do what was asked (its message and OpenEnv error ``code`` are kept)."""

    def __init__(self, message: str, code: str = "") -> None:
        super().__init__(message)
        self.code = code


def _http_base(url: str) -> str:
    url = url.rstrip("/")
    if url.startswith("ws://"):
        return "http://" + url[5:]
    if url.startswith("wss://"):
        return "https://" + url[6:]
    if not url.startswith(("http://", "https://")):
        raise ValueError(f"RemoteEnv url must start with http://, https://, ws:// or wss://, got {url!r}")
    return url


def fetch_schema(url: str, token: str | None = None, timeout: float = 30.0) -> dict[str, Any]:
    """The server's ``/schema`` (env id, gym.make kwargs, spaces, image format)."""
    request = urllib.request.Request(f"{_http_base(url)}/schema",
                                     headers={"Authorization": f"Bearer {token}"} if token else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return json.loads(response.read())
    except urllib.error.HTTPError as exc:
        raise RemoteEnvError(f"GET {url}/schema: HTTP {exc.code}: {exc.read()[:300].decode(errors='replace')}") from None
    except urllib.error.URLError as exc:
        raise RemoteEnvError(f"cannot reach the mmenvs server at {url}: {exc.reason}", "CONNECTION") from None


class RemoteEnv(gym.Env):
    """An env served by ``mmenvs serve`` at ``url``.

    ``env_id`` must be the id the server serves, and ``env_kwargs`` (gym.make keywords) the ones it was
    started with (``--kwargs``), so a client never gets an env other than the one it asked for.
    ``token`` (default: ``$MMENVS_TOKEN``) is the server's bearer token; ``timeout`` bounds each step.
    """

    metadata = {"render_modes": []}

    def __init__(self, url: str, env_id: str, *, token: str | None = None, timeout: float = 600.0,
                 **env_kwargs: Any) -> None:
        from websockets.sync.client import connect

        self.url = _http_base(url)
        self.env_id = env_id
        self.token = token if token is not None else os.environ.get("MMENVS_TOKEN") or None
        self.timeout = timeout
        schema = fetch_schema(self.url, self.token, timeout=min(timeout, 60.0))
        if schema.get("env_id") != env_id:
            raise ValueError(f"the server at {url} serves {schema.get('env_id')!r}, not {env_id!r}")
        served = schema.get("env_kwargs", {})
        if env_kwargs and to_jsonable(env_kwargs) != {k: served.get(k) for k in env_kwargs}:
            raise ValueError(f"the server at {url} serves {env_id} with gym.make kwargs {served}; you asked for "
                             f"{to_jsonable(env_kwargs)} (start a server with --kwargs '{json.dumps(to_jsonable(env_kwargs))}')")
        self.schema = schema
        self.observation_space = protocol.space_from_json(schema["spaces"]["observation"])
        self.action_space = protocol.space_from_json(schema["spaces"]["action"])
        self.metadata = {**schema.get("metadata", {}), "render_modes": []}
        ws_url = "ws" + self.url[4:] + "/ws"
        headers = {"Authorization": f"Bearer {self.token}"} if self.token else None
        try:
            # entered by hand: the connection lives as long as this env, not a with-block
            self._ws = connect(ws_url, additional_headers=headers, max_size=None,
                               open_timeout=min(timeout, 60.0)).__enter__()
        except Exception as exc:
            raise RemoteEnvError(f"cannot open a session at {ws_url}: {exc}", "CONNECTION") from None
        self._closed = False

    # -------------------------------------------------------------------------------- protocol
    def _request(self, message: dict[str, Any], expect: str) -> dict[str, Any]:
        if self._closed:
            raise RemoteEnvError("this RemoteEnv is closed", "CLOSED")
        try:
            self._ws.send(json.dumps(message))
            reply = json.loads(self._ws.recv(timeout=self.timeout))
        except TimeoutError:
            raise RemoteEnvError(f"the server did not answer {message['type']!r} within {self.timeout:g} s",
                                 "TIMEOUT") from None
        except Exception as exc:  # the connection closed: reaped, server gone
            raise RemoteEnvError(f"the session's connection to {self.url} closed ({exc})", "CONNECTION") from None
        if reply.get("type") == "error":
            data = reply.get("data", {})
            raise RemoteEnvError(f"server: {data.get('message')} (code {data.get('code')})", data.get("code", ""))
        if reply.get("type") != expect:
            raise RemoteEnvError(f"expected a {expect!r} reply to {message['type']!r}, got {reply.get('type')!r}")
        return reply["data"]

    def _unpack(self, data: dict[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        obs = protocol.decode_observation(data["observation"], self.observation_space)
        return obs, float(data["reward"]), bool(data["terminated"]), bool(data["truncated"]), data["info"]

    # -------------------------------------------------------------------------------- gym.Env
    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None) -> tuple[dict[str, Any], dict[str, Any]]:
        super().reset(seed=seed)
        obs, _, _, _, info = self._unpack(self._request({"type": "reset", "data": {"seed": seed, "options": options}},
                                                        "observation"))
        return obs, info

    def step(self, action: str | dict[str, Any]) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        return self._unpack(self._request({"type": "step", "data": {"action": action}}, "observation"))

    def state(self) -> dict[str, Any]:
        """The session's state on the server: episode id, step count, task id, worker pid."""
        return self._request({"type": "state"}, "state")

    def oracle_action(self, obs: Any = None, info: Any = None) -> str | dict[str, Any]:
        """The reference action for the current state (only from a server started with ``--oracle``)."""
        return self._request({"type": "oracle"}, "oracle")["action"]

    def close(self) -> None:
        if getattr(self, "_closed", True):
            return
        self._closed = True
        try:
            self._ws.send(json.dumps({"type": "close"}))
        except Exception:
            pass
        try:
            self._ws.close()
        except Exception:
            pass
