"""VTC-Bench reimplemented: OpenCV tools, problem generators, answer and chain scoring, ``VTCBench-v0``.

Importing this package is cheap: the env module loads lazily through the Gymnasium registry.
"""

from .problems import CATEGORIES, Problem, load_suite, load_tsv, validate_problem
from .scoring import aggregate, format_tables, is_correct, plot_tool_usage
from .tools import TOOLS, ToolError, call_tool, tool_catalog, tool_names

__all__ = [
    "CATEGORIES", "Problem", "TOOLS", "ToolError", "aggregate", "call_tool", "format_tables", "is_correct", "load_suite",
    "load_tsv", "plot_tool_usage", "tool_catalog", "tool_names", "validate_problem",
]
