"""Tasks and checkpoints know nothing of the sim: mmenvs/macagent/tasks.py, checkpoints/ and the modules
they share with the backends (apps_catalog, weather_cities, formats/) import nothing from
mmenvs.macagent.backends.sim, at module level or inside a function, so a checkpoint's getter runs
unchanged on the sim and over SSH on a guest. A static check (AST) of every import statement, plus a
check that the neutral app catalog and the sim's app registry agree."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

MACAGENT = Path(__file__).resolve().parents[1] / "mmenvs" / "macagent"
FORBIDDEN = "mmenvs.macagent.backends.sim"


def neutral_files() -> list[Path]:
    files = [MACAGENT / "tasks.py", MACAGENT / "apps_catalog.py", MACAGENT / "weather_cities.py"]
    files += sorted((MACAGENT / "checkpoints").glob("*.py"))
    files += sorted((MACAGENT / "formats").glob("*.py"))
    return files


def package_of(path: Path) -> str:
    return ".".join(path.relative_to(MACAGENT.parents[1]).with_suffix("").parts[:-1])


def imported_modules(path: Path, package: str) -> list[tuple[int, str]]:
    """(line, absolute module name) of every import in ``path``, relative imports resolved against ``package``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.append((node.lineno, module))
            # `from mmenvs.macagent.backends import sim` names the sim as an imported member
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "import_module":
            if node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def sim_imports(path: Path, package: str | None = None) -> list[str]:
    return [f"{path.name}:{line}: {module}" for line, module in imported_modules(path, package or package_of(path))
            if module == FORBIDDEN or module.startswith(FORBIDDEN + ".")]


def test_the_neutral_modules_exist():
    names = {p.relative_to(MACAGENT).as_posix() for p in neutral_files()}
    assert {"tasks.py", "apps_catalog.py", "weather_cities.py", "checkpoints/__init__.py", "checkpoints/file_getters.py",
            "checkpoints/app_getters.py", "formats/audio.py"} <= names


@pytest.mark.parametrize("path", neutral_files(), ids=lambda p: p.relative_to(MACAGENT).as_posix())
def test_no_sim_import(path: Path):
    assert sim_imports(path) == []


def test_the_check_sees_every_way_to_import_the_sim(tmp_path):
    # the checker itself: each of these forms must be caught (a static test that cannot fail proves nothing)
    probe = tmp_path / "probe.py"
    forms = ["from mmenvs.macagent.backends.sim.apps import APPS",
             "import mmenvs.macagent.backends.sim.apps.forecast as fx",
             "from mmenvs.macagent.backends import sim",
             "from ..backends.sim import SimBackend",
             "def f():\n    from mmenvs.macagent.backends.sim.apps.numbers_model import Table",
             "import importlib\nimportlib.import_module('mmenvs.macagent.backends.sim.apps.iwork')"]
    for form in forms:
        probe.write_text(form + "\n")
        assert sim_imports(probe, "mmenvs.macagent.checkpoints"), form
    probe.write_text("from mmenvs.macagent.backends.base import MacBackend\nfrom ..formats import audio\n")
    assert sim_imports(probe, "mmenvs.macagent.checkpoints") == []


def test_the_app_catalog_and_the_sim_registry_agree():
    from mmenvs.macagent import apps_catalog
    from mmenvs.macagent.backends.sim.apps import APP_MODULES, CLI_MODULES

    assert apps_catalog.MAC_APPS == tuple(APP_MODULES)
    assert apps_catalog.CLI_TOOLS == tuple(CLI_MODULES)
    assert not set(apps_catalog.LINUX_APPS) & set(apps_catalog.APPS)
    assert set(apps_catalog.APPS_BY_PLATFORM) == set(apps_catalog.PLATFORMS)


def test_the_weather_getter_and_the_sim_forecast_share_one_city_table():
    from mmenvs.macagent import weather_cities
    from mmenvs.macagent.backends.sim.apps import forecast

    assert forecast.CITIES is weather_cities.CITIES
    assert forecast.find_city is weather_cities.find_city
    assert weather_cities.find_city("NYC").name == "New York"
    assert forecast.find_city(forecast.HOME_CITY).name == "Cupertino"
