"""Shared test settings: a hypothesis profile that keeps fuzzing affordable on 2 cores, and the
simulated desktop fixture the MacAgent app tests share. A test that must wait for something that
happens on its own time (a process, a thread, a tmux pane) uses ``tests/_wait.py``'s ``wait_until``."""

from datetime import datetime

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("mmenvs", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.load_profile("mmenvs")


@pytest.fixture
def b(request: pytest.FixtureRequest, tmp_path):
    """A simulated macOS desktop reset over a fresh home at the test module's ``NOW`` (default
    2026-04-13 09:41); modules that need more (web pages, files) define their own ``b``."""
    from mmenvs.macagent.backends.sim import SimBackend

    be = SimBackend()
    be.reset(now=getattr(request.module, "NOW", datetime(2026, 4, 13, 9, 41)), home=tmp_path / "home")
    yield be
    be.close()
