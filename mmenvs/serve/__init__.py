"""``mmenvs serve``: envs as OpenEnv-compatible network services, with MCP tools (docs/serve.md).

``app.py`` the ASGI app and ``serve()``; ``sessions.py`` sessions, limits and the reaper;
``workers.py``/``worker_main.py`` one worker process per session; ``protocol.py`` the wire format;
``mcp.py`` the MCP bridge. The client is ``mmenvs.remote.RemoteEnv``.
"""

from mmenvs.serve.sessions import ServeConfig


def serve(config: ServeConfig, **kwargs):  # noqa: ANN001, ANN201  (imports uvicorn only when serving)
    """Run ``mmenvs serve`` (see ``mmenvs.serve.app.serve``)."""
    from mmenvs.serve.app import serve as run

    return run(config, **kwargs)


__all__ = ["ServeConfig", "serve"]
