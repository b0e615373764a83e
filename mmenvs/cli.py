"""The ``mmenvs`` command: list, eval, demo, bench."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

DEMO_TASKS = 3


def _cmd_list(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from mmenvs.core.registry import env_specs

    specs = {spec.id: spec for spec in env_specs()}
    if args.details:
        unknown = [i for i in args.details if i not in specs]
        if unknown:
            print(f"unknown env ids {unknown}; registered: {', '.join(specs)}", file=sys.stderr)
            return 2
    for env_id, spec in specs.items():
        if args.details and env_id not in args.details:
            continue
        env = gym.make(env_id)
        try:
            size = len(env.unwrapped.task_ids())
            print(f"{env_id:<20} {size:>5} tasks  {spec.description}")
            if args.details:
                for field, counts in env.unwrapped.suite_breakdown().items():
                    print(f"  by {field}:")
                    for value, count in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0])):
                        print(f"    {value:<32} {count:>5}  ({count / size:.0%})")
        finally:
            env.close()
    return 0


def _cmd_eval(args: argparse.Namespace) -> int:
    from mmenvs.runner import evaluate, format_summary

    try:
        env_kwargs = json.loads(args.env_kwargs) if args.env_kwargs else {}
        agent_kwargs = json.loads(args.agent_kwargs) if args.agent_kwargs else {}
    except json.JSONDecodeError as exc:
        print(f"--env-kwargs/--agent-kwargs must be JSON objects: {exc}", file=sys.stderr)
        return 2
    out = args.out or f"runs/{args.env_id}-{args.agent.replace(':', '_')}"
    summary = evaluate(args.env_id, agent=args.agent, tasks=args.tasks, attempts=args.attempts, workers=args.workers,
                       env_kwargs=env_kwargs, agent_kwargs=agent_kwargs, out=out, seed=args.seed)
    print(format_summary(summary))
    print(f"\nwrote {Path(out) / 'episodes.jsonl'}, {Path(out) / 'summary.json'}, {Path(out) / 'summary.png'}")
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    import mmenvs
    from mmenvs.runner import evaluate, format_summary

    status = 0
    for env_id in mmenvs.ENV_IDS:
        out = Path(args.out) / env_id
        summary = evaluate(env_id, agent="oracle", tasks=str(args.tasks), out=out, progress=False)
        print(format_summary(summary).split("\n\n")[0])
        print(f"  records in {out}\n")
        status |= summary["mean_score"] < 1.0
    return int(status)


def _cmd_bench(args: argparse.Namespace) -> int:
    from mmenvs.benchmarks.harness import format_rows, record, run

    rows = run(args.env_ids or None, workloads=not args.no_workloads)
    print(format_rows(rows))
    if args.record:
        record(rows, args.record)
        print(f"\nappended to {args.record}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mmenvs", description="Gymnasium environments for multimodal agents")
    commands = parser.add_subparsers(dest="command", required=True)

    listing = commands.add_parser("list", help="registered env ids, their suites and (with --details) breakdowns")
    listing.add_argument("--details", nargs="*", metavar="ID", help="print suite breakdowns for these ids (all if none given)")
    listing.set_defaults(func=_cmd_list)

    evaluation = commands.add_parser("eval", help="run an agent on an env's tasks and summarise")
    evaluation.add_argument("env_id")
    evaluation.add_argument("--agent", default="oracle", help="random | oracle | package.module:ClassName")
    evaluation.add_argument("--tasks", default="all", help="all | N (first N) | comma-separated task ids")
    evaluation.add_argument("--attempts", type=int, default=1, help="episodes per task (for pass@k / pass^k)")
    evaluation.add_argument("--workers", type=int, default=1, help="worker processes")
    evaluation.add_argument("--env-kwargs", default="", help="JSON object passed to gym.make")
    evaluation.add_argument("--agent-kwargs", default="", help="JSON object passed to the agent's constructor")
    evaluation.add_argument("--seed", type=int, default=0)
    evaluation.add_argument("--out", default=None, help="output folder (default runs/<ID>-<agent>)")
    evaluation.set_defaults(func=_cmd_eval)

    demo = commands.add_parser("demo", help="the oracle on a few tasks of every env")
    demo.add_argument("--tasks", type=int, default=DEMO_TASKS)
    demo.add_argument("--out", default="runs/demo")
    demo.set_defaults(func=_cmd_demo)

    bench = commands.add_parser("bench", help="latency, throughput and memory of every env and workload")
    bench.add_argument("env_ids", nargs="*")
    bench.add_argument("--no-workloads", action="store_true", help="only the generic env rows")
    bench.add_argument("--record", metavar="PATH", help="append the table to a Markdown file (e.g. benchmarks/RESULTS.md)")
    bench.set_defaults(func=_cmd_bench)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "list" and args.details == []:
        import mmenvs

        args.details = list(mmenvs.ENV_IDS)
    try:
        return int(args.func(args) or 0)
    except ValueError as exc:
        print(f"mmenvs {args.command}: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
