"""mmenvs.sandbox: the one place where untrusted agent code runs.

Three layers, each holding if the one before it is bypassed:

1. :mod:`~mmenvs.sandbox.policy` — a static AST check with readable messages (feedback, not security);
2. :mod:`~mmenvs.sandbox.isolation` — a worker process inside bubblewrap: all namespaces unshared,
   no network, no capabilities, read-only minimal filesystem, private tmpfs, empty environment;
3. limits — wall-clock timeout with kill-and-restart, CPU/address-space rlimits, a pids cgroup,
   output and value caps.

:class:`PythonSandbox` runs Python with tools as proxies; :class:`ShellSandbox` runs a persistent
shell confined to a per-episode home directory.  See docs/sandbox.md.
"""

from .images import image_tools
from .isolation import SandboxUnavailable, SandboxWarning
from .policy import DEFAULT_ALLOWED_IMPORTS, Policy, PolicyViolation
from .python import PythonSandbox, RunResult
from ._worker import unencodable_char
from .shell import KeptDaemon, ShellResult, ShellSandbox

__all__ = [
    "DEFAULT_ALLOWED_IMPORTS",
    "KeptDaemon",
    "Policy",
    "PolicyViolation",
    "PythonSandbox",
    "RunResult",
    "SandboxUnavailable",
    "SandboxWarning",
    "ShellResult",
    "ShellSandbox",
    "unencodable_char",
    "image_tools",
]
