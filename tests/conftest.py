"""Shared test settings: a hypothesis profile that keeps fuzzing affordable on 2 cores."""

from hypothesis import HealthCheck, settings

settings.register_profile("mmenvs", deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
settings.load_profile("mmenvs")
