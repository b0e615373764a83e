"""Peers that ``mmenvs bench`` runs beside our envs, in the same process (importable as
``mmenvs.benchmarks.peers``).

* :mod:`.compare` times two callables interleaved (so machine load hits both alike) and turns the
  samples into bench rows with ``ratio = ours / peer``;
* :mod:`.miniwob_peer` drives a real MiniWoB++ episode on Debian's headless Chromium, the GUI peer of
  MacAgent-v0.

The peers are optional (``pip install mmenvs[peers]`` plus ``./setup.sh --peers`` for Chromium): when one
is missing its rows say how to install it instead of failing the bench.
"""

from .compare import interleaved, missing_rows, paired_rows
from .miniwob_peer import (
    CHROMIUM_ARGS,
    INSTALL_HINT,
    MiniWoBClickPeer,
    chromium_paths,
    peer_missing,
)

__all__ = [
    "CHROMIUM_ARGS",
    "INSTALL_HINT",
    "MiniWoBClickPeer",
    "chromium_paths",
    "interleaved",
    "missing_rows",
    "paired_rows",
    "peer_missing",
]
