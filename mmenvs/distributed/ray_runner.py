"""Episodes on Ray actors: the scheduler behind ``mmenvs eval ID ... --ray [ADDRESS]``.

Each :class:`EpisodeActor` is one Ray actor holding one env (made in the actor with
``gym.make("mmenvs:ID", **kwargs)`` on its first episode and kept for the next ones) and running
episodes with the runner's own :func:`mmenvs.runner.run_episode`, so records, per-step recordings and
scores are the same as with the process pool. Jobs wait in one queue; an idle actor takes the next one
(``ray.wait`` on the calls in flight), so fast and slow episodes balance over the actors.

An actor that dies mid-episode (its process crashed or was killed, its node went away) is restarted by
Ray (``max_restarts``) and the episode goes back to the front of the queue once; if it dies again the
episode is recorded as an infrastructure failure (``infra_failure.kind == "ray_actor_died"``,
``score: null``), counted apart in summary.json like an LLM endpoint that kept failing, never as a 0.
An actor that used up its restarts is replaced by a fresh one.

Without an address (``"local"``) a private Ray instance is started for the run (``num_cpus`` = the
number of actors, no dashboard, its logs and sockets in a temporary folder removed at the end); with an
address (``"auto"``, ``"ray://host:10001"``, ``"host:6379"``) the run connects to that cluster. A Ray
instance the caller already started (``ray.is_initialized()``) is used as it is and left running.
Per-step records are written by the actors: on a multi-node cluster ``--out`` must be on a filesystem
every node shares, or the step folders stay on the nodes that ran the episodes.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import traceback
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from mmenvs.runner import EpisodeJob, close_worker_envs, infra_failure_record, run_episode

#: ``--ray`` without an address: start a private local instance (the same word Ray's ``ray.init`` uses).
LOCAL = "local"
#: How many times an episode whose actor died runs again before it is an infrastructure failure.
EPISODE_RETRIES = 1
#: Restarts Ray grants one actor before the scheduler replaces it with a new one.
ACTOR_MAX_RESTARTS = 3
#: The ``infra_failure.kind`` of an episode whose actor died on every try.
ACTOR_DIED = "ray_actor_died"


def _require_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ValueError("--ray needs Ray: pip install 'mmenvs[dist]' (or pip install 'ray>=2.9')") from None
    return ray


class EpisodeActor:
    """One env in one Ray worker process, running episodes of :class:`EpisodeJob` on demand.

    The env lives in the runner's per-process cache (``run_episode`` makes it on the first job and
    reuses it), exactly as in a process-pool worker; ``close`` releases it (and its sandboxes).
    """

    def run(self, job: EpisodeJob) -> dict[str, Any]:
        """The record of one episode (``run_episode`` never raises: an agent or env error is in it)."""
        return run_episode(job)

    def pid(self) -> int:
        """The worker's process id (tests kill it; the scheduler does not need it)."""
        return os.getpid()

    def close(self) -> None:
        close_worker_envs()


@dataclass
class _Slot:
    """An actor handle and how often it died (for replacing it once Ray stops restarting it)."""

    actor: Any
    deaths: int = 0


class RaySession:
    """Ray for one run: connects to ``address`` or starts a private instance, and undoes that at the end."""

    def __init__(self, address: str | None, num_cpus: int) -> None:
        self.ray = _require_ray()
        self.owned = False
        self.temp_dir: str | None = None
        if self.ray.is_initialized():
            return  # the caller's instance (a test fixture, a notebook): use it, leave it running
        if address in (None, "", LOCAL):
            # a short path: Ray's unix sockets live under it and socket paths are limited to 107 bytes
            self.temp_dir = tempfile.mkdtemp(prefix="mmenvs-ray-")
            self.ray.init(address=LOCAL, num_cpus=num_cpus, include_dashboard=False, _temp_dir=self.temp_dir,
                          log_to_driver=False, logging_level="warning")
        else:
            self.ray.init(address=address, log_to_driver=False, logging_level="warning")
        self.owned = True

    def close(self) -> None:
        if self.owned:
            self.ray.shutdown()
            self.owned = False
        if self.temp_dir:
            shutil.rmtree(self.temp_dir, ignore_errors=True)
            self.temp_dir = None


def run_on_ray(jobs: Sequence[EpisodeJob], finish: Callable[[int, dict[str, Any]], None], *, address: str | None = LOCAL,
               actors: int = 1, max_restarts: int = ACTOR_MAX_RESTARTS, retries: int = EPISODE_RETRIES) -> None:
    """Run ``jobs`` on ``actors`` Ray actors and pass each record to ``finish(job index, record)`` as it comes.

    ``address``: ``"local"`` (or None) starts a private instance with ``num_cpus=actors``; anything else
    is given to ``ray.init(address=...)``. An episode whose actor died runs again ``retries`` times, then
    is recorded as an infrastructure failure. On Ctrl-C the actors are killed and the error propagates.
    """
    if not jobs:
        return
    actors = max(1, int(actors))
    session = RaySession(address, num_cpus=actors)
    ray = session.ray
    remote_actor = ray.remote(num_cpus=1, max_restarts=max_restarts, max_task_retries=0)(EpisodeActor)
    slots: list[_Slot] = []
    try:
        available = int(ray.cluster_resources().get("CPU", actors))
        # more actors than CPUs would wait for resources forever: one actor per CPU at most
        slots = [_Slot(remote_actor.remote()) for _ in range(max(1, min(actors, available)))]
        _schedule(ray, remote_actor, slots, jobs, finish, max_restarts=max_restarts, retries=retries)
    except BaseException:
        for slot in slots:
            ray.kill(slot.actor, no_restart=True)
        slots = []
        raise
    finally:
        _close_actors(ray, slots)
        session.close()


def _schedule(ray: Any, remote_actor: Any, slots: list[_Slot], jobs: Sequence[EpisodeJob],
              finish: Callable[[int, dict[str, Any]], None], *, max_restarts: int, retries: int) -> None:
    queue = deque(range(len(jobs)))
    failures = [0] * len(jobs)
    idle = list(range(len(slots)))
    in_flight: dict[Any, tuple[int, int | None]] = {}  # call -> (slot, job index; None for a liveness ping)

    def replace(slot: int) -> None:
        ray.kill(slots[slot].actor, no_restart=True)
        slots[slot] = _Slot(remote_actor.remote())

    def ping(slot: int) -> None:
        # A dead actor gets work again only once it answers: a call sent while Ray has not yet noticed
        # the death would fail at once and waste the episode's one retry.
        in_flight[slots[slot].actor.pid.remote()] = (slot, None)

    while queue or in_flight:
        while idle and queue:
            slot, index = idle.pop(0), queue.popleft()
            in_flight[slots[slot].actor.run.remote(jobs[index])] = (slot, index)
        ready, _ = ray.wait(list(in_flight), num_returns=1)
        for call in ready:
            slot, index = in_flight.pop(call)
            try:
                record = ray.get(call)
            except ray.exceptions.RayError as exc:  # the actor died (or Ray lost the call): not the agent's doing
                if index is None:  # it did not come back: a fresh actor takes its place
                    replace(slot)
                    ping(slot)
                    continue
                failures[index] += 1
                slots[slot].deaths += 1
                if slots[slot].deaths > max_restarts:  # Ray will not restart it again
                    replace(slot)
                ping(slot)
                if failures[index] <= retries:
                    queue.appendleft(index)  # first in line: its retry should not wait behind the whole run
                else:
                    record = infra_failure_record(jobs[index], kind=ACTOR_DIED, error=_describe(exc),
                                                  traceback_text=traceback.format_exc(limit=8))
                    record["ray_tries"] = failures[index]
                    finish(index, record)
                continue
            if index is not None:
                if failures[index]:
                    record["ray_tries"] = failures[index] + 1  # how many tries the episode took
                finish(index, record)
            idle.append(slot)


def _close_actors(ray: Any, slots: list[_Slot]) -> None:
    """Let each actor close its env (and the env's sandbox processes), then end it."""
    closing = [slot.actor.close.remote() for slot in slots]
    if closing:
        try:
            ray.wait(closing, num_returns=len(closing), timeout=30)
        except Exception:  # a dead actor cannot close anything; killing it below is all there is to do
            pass
    for slot in slots:
        try:
            ray.kill(slot.actor, no_restart=True)
        except Exception:
            pass


def _describe(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {text[0] if text else ''}"[:500]
