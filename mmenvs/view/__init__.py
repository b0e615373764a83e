"""``mmenvs view``: an HTML report of an evaluation run, to see what an agent did and why it failed.

``write_report(RUN_DIR)`` writes ``RUN_DIR/report.html`` (summary, breakdowns, a sortable, filterable
episode table) and ``RUN_DIR/report_pages/<episode>.html`` (each step's action, observation, images
with GUI actions marked, reward and score so far; the final checkpoints, entity diff or tool chain).
``write_comparison(RUN_A, RUN_B)`` sets two runs side by side; ``serve`` serves a report on
127.0.0.1. Modules: ``loader`` (reading a run, forgiving crashes), ``pointer`` (where a GUI action
pointed), ``html`` (escaping, page shell, script), ``report`` (the pages), ``serve``, ``cli``.
"""

from .loader import Episode, Run, Step, load_run, read_steps
from .report import write_comparison, write_report
from .serve import serve

__all__ = ["Episode", "Run", "Step", "load_run", "read_steps", "serve", "write_comparison", "write_report"]
