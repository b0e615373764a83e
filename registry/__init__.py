"""Declarative data of mmenvs: env declarations (``envs/``) and task suites, one folder per benchmark.

Installed as package data under ``mmenvs.registry``; read it through ``mmenvs.core.registry``.
"""
