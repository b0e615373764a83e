"""Starting and stopping a ``mmenvs serve`` subprocess on an ephemeral loopback port, for the serve tests."""

from __future__ import annotations

import json
import os
import re
import signal
import shutil
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

import psutil
from _wait import is_running, wait_until

TOKEN = "test-token-123"


class Server:
    """``mmenvs serve ARGS`` in a subprocess; ``url`` once it listens; ``stop()`` asserts nothing outlives it."""

    def __init__(self, *args: str, token: str | None = TOKEN) -> None:
        # The server gets a temp folder of its own: what it leaves there is its leak, never another process's
        # (a second test run on the machine makes pymp-* folders in the shared /tmp too).
        self.tmpdir = Path(tempfile.mkdtemp(prefix="mmenvs-serve-test-"))
        env = {**os.environ, "MMENVS_TEST_TOKEN": token or "", "TMPDIR": str(self.tmpdir)}
        command = [sys.executable, "-m", "mmenvs.cli", "serve", *args, "--port", "0"]
        if token:
            command += ["--token-env", "MMENVS_TEST_TOKEN"]
        self.log = Path(tempfile.gettempdir()) / f"mmenvs-serve-test-{os.getpid()}-{id(self)}.log"
        self._log_handle = open(self.log, "w+")
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=self._log_handle, text=True, env=env)
        line = self.process.stdout.readline()
        match = re.search(r"on (http://127\.0\.0\.1:\d+)", line)
        if not match:
            self.process.kill()
            self.process.wait()
            raise AssertionError(f"the server did not start: {line!r} {self.log.read_text()[-2000:]}")
        self.url = match.group(1)
        self.token = token
        self.seen_children: set[int] = set()

    def headers(self) -> dict[str, str]:
        return {"Authorization": f"Bearer {self.token}"} if self.token else {}

    def get(self, path: str) -> dict:
        with urllib.request.urlopen(urllib.request.Request(self.url + path, headers=self.headers()), timeout=30) as r:
            return json.loads(r.read())

    def health(self) -> dict:
        return self.get("/health")

    def children(self) -> set[int]:
        try:
            pids = {p.pid for p in psutil.Process(self.process.pid).children(recursive=True)}
        except psutil.Error:
            pids = set()
        self.seen_children |= pids
        return pids

    def stop(self) -> None:
        """Interrupt the server and assert its workers, its forkserver and its temp folders are gone."""
        self.children()
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=60)
        finally:
            if self.process.poll() is None:
                self.process.kill()
                self.process.wait()
            self.process.stdout.close()
            self._log_handle.close()
        wait_until(lambda: [pid for pid in self.seen_children if is_running(pid)], check=lambda alive: not alive,
                   what="every process the server started to exit")
        leaked = sorted(p.name for p in self.tmpdir.iterdir())
        self.log.unlink(missing_ok=True)
        shutil.rmtree(self.tmpdir, ignore_errors=True)
        assert not leaked, f"the server left temp folders or files {leaked}"
