"""The ``mmenvs`` command: list, eval, view, demo, bench."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Sequence

DEMO_TASKS = 3


def _cmd_list(args: argparse.Namespace) -> int:
    import gymnasium as gym

    from mmenvs.core.registry import env_specs

    if args.official_dir:  # MacAgent-v0 on a checkout of the public benchmark's task/ folder
        from mmenvs.macagent.official import list_official

        return list_official(args.official_dir, details=args.details is not None, verify=args.verify, report=args.report)

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


#: ``mmenvs eval`` flags that configure ``--agent llm`` (flag dest -> LLMAgent keyword).
_LLM_FLAGS = {"model": "model", "base_url": "base_url", "api_key_env": "api_key_env", "framework": "framework",
              "temperature": "temperature", "max_tokens": "max_tokens", "sampling_seed": "seed",
              "max_images": "max_images", "image_format": "image_format", "max_image_side": "max_image_side",
              "timeout": "timeout", "retries": "retries", "max_reprompts": "max_reprompts",
              "price_prompt": "price_prompt", "price_completion": "price_completion", "cache": "cache",
              "cache_mode": "cache_mode"}


def _cmd_eval(args: argparse.Namespace) -> int:
    from mmenvs.runner import evaluate, format_summary

    try:
        env_kwargs = json.loads(args.env_kwargs) if args.env_kwargs else {}
        agent_kwargs = json.loads(args.agent_kwargs) if args.agent_kwargs else {}
    except json.JSONDecodeError as exc:
        print(f"--env-kwargs/--agent-kwargs must be JSON objects: {exc}", file=sys.stderr)
        return 2
    given = {keyword: getattr(args, dest) for dest, keyword in _LLM_FLAGS.items() if getattr(args, dest) is not None}
    if args.agent == "llm":
        if "model" not in given and "model" not in agent_kwargs:
            raise ValueError("--agent llm needs --model NAME (the model the endpoint serves)")
        if args.api_key_env and args.api_key_env not in os.environ:
            raise ValueError(f"--api-key-env {args.api_key_env}: that environment variable is not set")
        if args.cache_mode == "replay" and "cache" not in given and "cache" not in agent_kwargs:
            raise ValueError("--cache-mode replay needs --cache DIR (the responses to replay)")
        # The key stays in the environment: workers read the variable, so it is never in a job or a record.
        agent_kwargs = {**given, **agent_kwargs}
    elif given:
        raise ValueError(f"{', '.join('--' + d.replace('_', '-') for d, k in _LLM_FLAGS.items() if k in given)} "
                         f"configure --agent llm, not --agent {args.agent}")
    out = args.out or f"runs/{args.env_id}-{args.agent.replace(':', '_')}"
    try:
        summary = evaluate(args.env_id, agent=args.agent, tasks=args.tasks, attempts=args.attempts, workers=args.workers,
                           env_kwargs=env_kwargs, agent_kwargs=agent_kwargs, out=out, seed=args.seed, resume=args.resume,
                           ray_address=args.ray, server=args.server)
    except KeyboardInterrupt:
        print(f"\ninterrupted: finished episodes are in {Path(out) / 'episodes.jsonl'}; "
              f"run the same command with --resume to continue", file=sys.stderr)
        return 130
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


def _cmd_serve(args: argparse.Namespace) -> int:
    from mmenvs.serve import ServeConfig, serve

    try:
        env_kwargs = json.loads(args.kwargs) if args.kwargs else {}
    except json.JSONDecodeError as exc:
        raise ValueError(f"--kwargs must be a JSON object: {exc}") from None
    if not isinstance(env_kwargs, dict):
        raise ValueError(f"--kwargs must be a JSON object, got {type(env_kwargs).__name__}")
    token = None
    if args.token_env:
        token = os.environ.get(args.token_env)
        if not token:
            raise ValueError(f"--token-env {args.token_env}: that environment variable is not set or empty")
    config = ServeConfig(env_id=args.env_id, env_kwargs=env_kwargs, max_sessions=args.max_sessions,
                         idle_timeout=args.idle_timeout, image_format=args.image_format, token=token,
                         mcp=args.mcp, allow_oracle=args.oracle, max_message_bytes=args.max_message_bytes)
    serve(config, host=args.host, port=args.port, allow_remote=args.allow_remote)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="mmenvs", description="Gymnasium environments for multimodal agents")
    commands = parser.add_subparsers(dest="command", required=True)

    listing = commands.add_parser("list", help="registered env ids, their suites and (with --details) breakdowns")
    listing.add_argument("--details", nargs="*", metavar="ID", help="print suite breakdowns for these ids (all if none given)")
    listing.add_argument("--official-dir", metavar="PATH", help="MacAgent-v0's suite='official': import the public MacAgentBench "
                                                               "task/ folder at PATH and list the importable and skipped tasks")
    listing.add_argument("--verify", action="store_true", help="with --official-dir: run every imported task with its oracle and with DONE")
    listing.add_argument("--report", metavar="FILE", help="with --official-dir: write the per-task table (Markdown) to FILE")
    listing.set_defaults(func=_cmd_list)

    evaluation = commands.add_parser("eval", help="run an agent on an env's tasks and summarise")
    evaluation.add_argument("env_id")
    evaluation.add_argument("--agent", default="oracle", help="random | oracle | llm | package.module:ClassName")
    evaluation.add_argument("--tasks", default="all", help="all | N (first N) | comma-separated task ids")
    evaluation.add_argument("--attempts", type=int, default=1, help="episodes per task (for pass@k / pass^k)")
    evaluation.add_argument("--workers", type=int, default=1, help="worker processes (with --ray: Ray actors)")
    evaluation.add_argument("--server", metavar="URL", help="run the episodes on a `mmenvs serve` server (docs/serve.md); "
                                                            "--agent oracle needs that server started with --oracle")
    evaluation.add_argument("--ray", nargs="?", const="local", default=None, metavar="ADDRESS",
                            help="run the episodes on Ray actors (one env each; see docs/ray.md): without ADDRESS a "
                                 "private local instance, else the cluster to connect to (auto, ray://HOST:10001)")
    evaluation.add_argument("--env-kwargs", default="", help="JSON object passed to gym.make")
    evaluation.add_argument("--agent-kwargs", default="", help="JSON object passed to the agent's constructor")
    evaluation.add_argument("--seed", type=int, default=0)
    evaluation.add_argument("--out", default=None, help="output folder (default runs/<ID>-<agent>)")
    evaluation.add_argument("--resume", action="store_true",
                            help="keep the finished episodes of OUT/episodes.jsonl and run only the rest "
                                 "(infrastructure failures run again)")
    llm = evaluation.add_argument_group("LLM agent (--agent llm; see docs/llm.md)")
    llm.add_argument("--model", help="model name the endpoint serves")
    llm.add_argument("--base-url", help="OpenAI-compatible endpoint, e.g. http://127.0.0.1:8000/v1 (default: OpenAI)")
    llm.add_argument("--api-key-env", metavar="VAR", help="environment variable holding the API key (default OPENAI_API_KEY)")
    llm.add_argument("--framework", help="agent set-up: MacAgent pyautogui|computer_use|hybrid; MMToolSandbox code|tool; "
                                         "VTCBench tool|code; other envs text|tool (default: the env's mode / baseline)")
    llm.add_argument("--temperature", type=float)
    llm.add_argument("--max-tokens", type=int)
    llm.add_argument("--sampling-seed", type=int, help="the `seed` sampling option sent to the endpoint")
    llm.add_argument("--max-images", type=int, help="images kept in the conversation (older ones become a marker; default 4)")
    llm.add_argument("--image-format", choices=["jpeg", "png"])
    llm.add_argument("--max-image-side", type=int, help="downscale images so their longer side is at most this (px)")
    llm.add_argument("--timeout", type=float, help="seconds per model call (default 120)")
    llm.add_argument("--retries", type=int, help="retries of a failing call, with exponential backoff (default 5)")
    llm.add_argument("--max-reprompts", type=int, help="re-asks per step when a reply is unusable (default 2)")
    llm.add_argument("--price-prompt", type=float, metavar="USD", help="price per 1M prompt tokens (for the cost ledger)")
    llm.add_argument("--price-completion", type=float, metavar="USD", help="price per 1M completion tokens")
    llm.add_argument("--cache", metavar="DIR", help="response cache folder (replays identical requests)")
    llm.add_argument("--cache-mode", choices=["readwrite", "replay"], help="replay: answer only from the cache, never call the endpoint")
    evaluation.set_defaults(func=_cmd_eval)

    from mmenvs.view.cli import add_parser as add_view_parser

    add_view_parser(commands)  # `mmenvs view RUN_DIR [RUN_B]`: the HTML report (mmenvs/view/)

    demo = commands.add_parser("demo", help="the oracle on a few tasks of every env")
    demo.add_argument("--tasks", type=int, default=DEMO_TASKS)
    demo.add_argument("--out", default="runs/demo")
    demo.set_defaults(func=_cmd_demo)

    serving = commands.add_parser("serve", help="an env as an OpenEnv-compatible service (HTTP + WebSocket, MCP)")
    serving.add_argument("env_id")
    serving.add_argument("--host", default="127.0.0.1", help="address to listen on (loopback unless --allow-remote)")
    serving.add_argument("--port", type=int, default=8000, help="port (0: any free port, printed at start)")
    serving.add_argument("--max-sessions", type=int, default=64, help="sessions (env worker processes) at most")
    serving.add_argument("--idle-timeout", type=float, default=300.0, help="seconds before an idle session is reaped")
    serving.add_argument("--token-env", metavar="VAR", help="environment variable holding the bearer token clients must send")
    serving.add_argument("--allow-remote", action="store_true", help="allow a non-loopback --host (needs --token-env)")
    serving.add_argument("--image-format", choices=["png", "jpeg"], default="png", help="how observation images travel")
    serving.add_argument("--mcp", action="store_true", help="also serve the episode's tools over MCP at /mcp/")
    serving.add_argument("--oracle", action="store_true", help="answer 'oracle' messages with the reference action (tests, demos)")
    serving.add_argument("--max-message-bytes", type=int, default=4 * 1024 * 1024, help="largest request or WebSocket message")
    serving.add_argument("--kwargs", default="", help="JSON object passed to gym.make")
    serving.set_defaults(func=_cmd_serve)

    from mmenvs.baselines.rl.train import add_parser as add_train_parser

    add_train_parser(commands)  # `mmenvs train ID --algo ppo ...`: SB3 training + held-out evaluation (baselines/rl/)

    from mmenvs.macagent.backends.vm.cli import add_parser as add_vm_parser

    add_vm_parser(commands)  # `mmenvs vm build-test-guest`, ...: the VM backend's guests (macagent/backends/vm/cli.py)

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
