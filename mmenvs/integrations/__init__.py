"""Adapters from mmenvs to other ecosystems, in one place.

- ``mmenvs.integrations.verifiers``: any mmenvs env as a `verifiers <https://pypi.org/project/verifiers/>`_
  environment (``load_environment("VTCBench-v0", ...)``) whose rollouts step the env through the
  chat-message adapter (``mmenvs.wrappers.ChatMessages``) and whose reward is the benchmark score.

Each adapter imports its ecosystem's package only when it is imported itself.
"""
