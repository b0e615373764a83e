"""The performance harness behind ``mmenvs bench`` (importable as ``mmenvs.benchmarks``).

Recorded results live beside this file in ``RESULTS.md``.
"""
