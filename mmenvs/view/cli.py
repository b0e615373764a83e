"""The ``mmenvs view`` subcommand (registered by ``mmenvs.cli``)."""

from __future__ import annotations

import argparse
from pathlib import Path


def add_parser(commands: "argparse._SubParsersAction[argparse.ArgumentParser]") -> None:
    """Register ``mmenvs view RUN_DIR [RUN_B] [--out PATH] [--embed-images] [--serve [--port N]]``."""
    view = commands.add_parser("view", help="an HTML report of a run (or two runs side by side)",
                               description="Write a static HTML report of an `mmenvs eval` run folder: the summary, a "
                                           "sortable episode table and one page per episode with every step. With two "
                                           "run folders: a side-by-side comparison on the same tasks.")
    view.add_argument("runs", nargs="+", metavar="RUN_DIR", help="one run folder, or two to compare")
    view.add_argument("--out", help="report file (default RUN_DIR/report.html; comparison: RUN_A/compare-<RUN_B>.html); "
                                    "episode pages go to <name>_pages/ beside it")
    view.add_argument("--embed-images", action="store_true",
                      help="embed images as data URLs (a portable report) instead of linking them from the run folder")
    view.add_argument("--serve", action="store_true", help="serve the report on 127.0.0.1 after writing it")
    view.add_argument("--port", type=int, default=0, help="port for --serve (default: any free port)")
    view.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Write the report (and serve it with --serve); a folder that is not a run is a ValueError (exit 2)."""
    from mmenvs.view.report import report_roots, write_comparison, write_report
    from mmenvs.view.serve import serve

    if len(args.runs) > 2:
        raise ValueError(f"give one run folder, or two to compare; got {len(args.runs)}")
    if len(args.runs) == 1:
        index = write_report(args.runs[0], args.out, embed_images=args.embed_images)
    else:
        index = write_comparison(args.runs[0], args.runs[1], args.out, embed_images=args.embed_images)
    print(f"wrote {index}")
    if args.serve:
        serve(index, report_roots(index, [Path(r) for r in args.runs]), args.port)
    return 0
