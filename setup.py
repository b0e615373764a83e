"""Package layout: the repo keeps the card's top-level folders (wrappers/, baselines/, registry/,
benchmarks/), but installed they live only under the ``mmenvs`` namespace, so nothing with a
generic name lands in site-packages. Metadata is in pyproject.toml."""
from setuptools import find_packages, setup

ROOTS = {
    "mmenvs": "mmenvs",
    "mmenvs.wrappers": "wrappers",
    "mmenvs.baselines": "baselines",
    "mmenvs.registry": "registry",
    "mmenvs.benchmarks": "benchmarks",
}

packages, package_dir = [], {}
for package, folder in ROOTS.items():
    package_dir[package] = folder
    packages.append(package)
    packages += [f"{package}.{sub}" for sub in find_packages(folder)]

setup(packages=packages, package_dir=package_dir)
