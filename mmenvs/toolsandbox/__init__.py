"""MMToolSandbox: a stateful multi-app phone world, 500+ tools, tool search, a scripted user and entity-diff scoring.

``tool_catalog(toolset)`` lists a toolset's tool specs (name, app, description, JSON schema);
``MMToolSandboxEnv`` (registered as ``MMToolSandbox-v0``) is the Gymnasium environment.
"""

from .catalog import TOOLSETS, tool_catalog, toolset_tools
from .world import ToolError, World

__all__ = ["TOOLSETS", "MMToolSandboxEnv", "ToolError", "World", "tool_catalog", "toolset_tools"]


def __getattr__(name: str):  # the env pulls in gymnasium and the sandbox: import it on demand
    if name == "MMToolSandboxEnv":
        from .env import MMToolSandboxEnv

        return MMToolSandboxEnv
    raise AttributeError(name)
