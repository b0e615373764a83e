"""``mmenvs bench`` rows of MacAgent's VM backend on the Linux test guest (issue 16, Performance):
reset from the warm pool and cold, a GUI step with its screenshot, a shell step, a getter, and the
two screenshot paths and one input event alone; each beside the same operation on the sim (measured
in this process), and the resets beside the paper's 30 s VM start.

It needs a Docker daemon: ``$MMENVS_DOCKER_HOST`` (e.g. ``unix:///tmp/x/docker.sock``), else the
environment's default. Without one the rows say so in their note instead of failing the bench.
"""

from __future__ import annotations

import os
import time
from typing import Any, Callable

from mmenvs.benchmarks.harness import measure, timing_row

PAPER_VM_START_MS = 30_000.0
PAPER_LABEL = "paper VM start, 30 s (MacAgentBench §3.1; a constant from the paper, not measured)"
SIM_LABEL = "the same on backend='sim'"
ROWS = (
    "macagent vm: reset, pool hit (a warm guest is taken; setup runs)",
    "macagent vm: reset, cold (pool_size=0: a guest boots, then setup)",
    "macagent vm: GUI step, TYPING a key into xterm + new 1280x800 screenshot + a11y",
    "macagent vm: shell step (```bash ls -la ~```) + screenshot",
    "macagent vm: getter (one shell checkpoint over SSH exec)",
    "macagent vm: screenshot alone over VNC (RFB, 1280x800)",
    "macagent vm: screenshot alone over SSH (xwd)",
    "macagent vm: one input event round trip (pynput agent over SSH)",
)



def _missing(reason: str) -> list[dict[str, Any]]:
    return [{"name": name, "note": reason} for name in ROWS]


def _client() -> Any:
    from mmenvs.macagent.backends.vm.guest import docker_client

    client = docker_client(os.environ.get("MMENVS_DOCKER_HOST"))
    client.ping()
    return client


def _ratio_row(name: str, samples: list[float], peer_samples: list[float] | None, peer: str, **extra: Any) -> dict[str, Any]:
    row = timing_row(name, samples, **extra)
    if peer_samples:
        peer_median = timing_row("", peer_samples)["median_ms"]
        row.update(peer=peer, peer_median_ms=peer_median, ratio=row["median_ms"] / peer_median if peer_median else None)
    return row


def _sim_samples() -> dict[str, list[float]]:
    """Reset, a GUI step, a shell step and a getter on the sim, for the VM rows' comparison."""
    from mmenvs.macagent.env import MacAgentEnv

    env = MacAgentEnv(max_steps=10_000, store_screenshots=False)
    try:
        ids = env.task_ids()
        state = {"i": 0}

        def reset() -> None:
            env.reset(options={"task_id": ids[state["i"] % len(ids)]})
            state["i"] += 1

        out = {"reset": measure(reset, repeat=10, warmup=2)}
        env.reset(options={"task_id": "textedit-save-document-v0"})
        out["gui"] = measure(lambda: env.step({"action_type": "TYPING", "text": "a"}), repeat=20)
        out["shell"] = measure(lambda: env.step("```bash\nls -la ~\n```"), repeat=20)
        out["getter"] = measure(lambda: env._ctx.run("ls ~"), repeat=20)
        return out
    finally:
        env.close()


def workloads() -> list[dict[str, Any]]:
    try:
        import paramiko  # noqa: F401
        client = _client()
    except Exception as error:  # noqa: BLE001 - no SDK or no daemon: the rows say why
        return _missing(f"not measured: no Docker daemon ({type(error).__name__}: {str(error)[:120]}); "
                        "set MMENVS_DOCKER_HOST to a running dockerd")
    try:
        from mmenvs.macagent.backends.vm.guest_image import ensure_test_guest

        ensure_test_guest(client)
    except Exception as error:  # noqa: BLE001
        client.close()
        return _missing(f"not measured: the test guest is not available ({type(error).__name__}: {str(error)[:120]})")
    try:
        sim = _sim_samples()
        return _vm_rows(client, sim)
    finally:
        client.close()


def _make(client: Any, pool_size: int) -> Any:
    from mmenvs.macagent.env import MacAgentEnv

    return MacAgentEnv(backend="vm", suite="linux", vm_client=client, pool_size=pool_size, max_steps=10_000,
                       store_screenshots=False)


def _vm_rows(client: Any, sim: dict[str, list[float]]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    env = _make(client, 1)
    try:
        backend = env.backend
        ids = env.task_ids()
        state = {"i": 0}
        hot: list[float] = []
        for i in range(8):
            backend.pool.wait_warm(300)  # not timed: the warm pool has a guest ready, as between episodes
            start = time.perf_counter()
            env.reset(options={"task_id": ids[i % len(ids)]})
            hot.append((time.perf_counter() - start) * 1000.0)
        rows.append(_ratio_row(ROWS[0], hot, sim["reset"], SIM_LABEL,
                               note=f"ratio vs the sim; vs the paper's 30 s start: {timing_row('', hot)['median_ms'] / PAPER_VM_START_MS:.3f}; "
                                    f"a different starter task each time ({len(ids)} variants)"))

        env.reset(options={"task_id": "linux-xterm-mkdir-v0"} if "linux-xterm-mkdir-v0" in ids else {"task_id": ids[0]})
        env.step({"action_type": "CLICK", "x": 200, "y": 150})
        keys = "abcdefghij"

        def type_key() -> None:
            state["i"] += 1
            env.step({"action_type": "TYPING", "text": keys[state["i"] % len(keys)]})

        gui = measure(type_key, repeat=20, warmup=2)
        rows.append(_ratio_row(ROWS[2], gui, sim["gui"], SIM_LABEL,
                               note=f"screenshot path: {backend.capture_method} (measured at the first reset: "
                                    + ", ".join(f"{k} {v * 1000:.1f} ms" for k, v in backend.capture_timings.items()) + ")"))
        shell = measure(lambda: env.step("```bash\nls -la ~\n```"), repeat=20, warmup=2)
        rows.append(_ratio_row(ROWS[3], shell, sim["shell"], SIM_LABEL, note="one persistent bash per episode over paramiko"))
        getter = measure(lambda: env._ctx.run("ls ~"), repeat=20)
        rows.append(_ratio_row(ROWS[4], getter, sim["getter"], SIM_LABEL, note="a fresh SSH exec session per getter"))

        from mmenvs.macagent.backends.vm.capture import VNCCapture, ssh_capture

        guest = backend.guest
        vnc = VNCCapture("127.0.0.1", guest.vnc_port)
        try:
            rows.append(timing_row(ROWS[5], measure(vnc.grab, repeat=20, warmup=2),
                                   note=f"waits for {vnc.quiet * 1000:.0f} ms without updates (x11vnc scans while a request is outstanding)"))
        finally:
            vnc.close()
        grab = ssh_capture(guest.link, "linux", guest.display)
        rows.append(timing_row(ROWS[6], measure(grab, repeat=20, warmup=2), note="xwd -root over SSH exec, parsed with numpy"))
        move: Callable[[], None] = lambda: backend._agent({"op": "move", "x": 10 + state["i"] % 5, "y": 10})
        rows.append(timing_row(ROWS[7], measure(move, repeat=40, warmup=2), note="a JSON line to the input agent and its reply"))
    finally:
        env.close()

    cold_env = _make(client, 0)
    try:
        ids = cold_env.task_ids()
        cold = []
        for i in range(4):
            start = time.perf_counter()
            cold_env.reset(options={"task_id": ids[i % len(ids)]})
            cold.append((time.perf_counter() - start) * 1000.0)
        rows.append(_ratio_row(ROWS[1], cold, [PAPER_VM_START_MS], PAPER_LABEL,
                               note=f"container start + sshd/X/VNC readiness + setup; vs the sim: "
                                    f"{timing_row('', cold)['median_ms'] / timing_row('', sim['reset'])['median_ms']:.0f}x"))
    finally:
        cold_env.close()
    order = {name: i for i, name in enumerate(ROWS)}
    return sorted(rows, key=lambda r: order.get(r["name"], 99))
