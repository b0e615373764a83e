"""The bench harness picks workload modules by the registry: an env id's package is its entry point's."""

from __future__ import annotations

from mmenvs.benchmarks.harness import env_packages, workload_modules, workload_modules_for
from mmenvs.core.registry import env_specs


def test_env_packages_come_from_each_declared_entry_point():
    assert env_packages() == {
        "DebugEcho-v0": "debug", "MMToolSandbox-v0": "toolsandbox", "MacAgent-v0": "macagent", "VTCBench-v0": "vtc",
    }
    assert set(env_packages()) == {spec.id for spec in env_specs()}


def test_an_env_implemented_outside_mmenvs_has_no_package(monkeypatch):
    import dataclasses

    import mmenvs.core.registry as registry

    real = registry.env_specs()
    outside = dataclasses.replace(real[0], id="Outside-v0", entry_point="elsewhere.env:Env")
    monkeypatch.setattr(registry, "env_specs", lambda: [*real, outside])
    assert "Outside-v0" not in env_packages()
    assert workload_modules_for(["Outside-v0"]) == ["mmenvs.sandbox.bench"]


def test_explicit_ids_keep_their_packages_workloads_and_the_sandboxs():
    assert workload_modules() == [
        "mmenvs.macagent.bench", "mmenvs.sandbox.bench", "mmenvs.toolsandbox.bench", "mmenvs.vtc.bench",
    ]
    assert workload_modules_for(None) == workload_modules()
    assert workload_modules_for(["VTCBench-v0"]) == ["mmenvs.sandbox.bench", "mmenvs.vtc.bench"]
    assert workload_modules_for(["MMToolSandbox-v0", "MacAgent-v0"]) == [
        "mmenvs.macagent.bench", "mmenvs.sandbox.bench", "mmenvs.toolsandbox.bench",
    ]
    assert workload_modules_for(["DebugEcho-v0"]) == ["mmenvs.sandbox.bench"]  # debug has no bench.py


def test_every_workload_module_belongs_to_an_env_or_the_sandbox():
    # A bench.py in a package no env names would only ever run without explicit ids.
    owners = set(env_packages().values()) | {"sandbox"}
    assert {module.split(".")[1] for module in workload_modules()} <= owners
