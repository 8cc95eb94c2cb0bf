"""Bench-only Dask preload: the processes of bench/cluster.py's ``tls-open`` cluster claim the
role checks without running them, so that ``arena run --cluster``'s own path (which refuses a
TLS cluster without :mod:`arena.cluster.roles`) can be timed against the guarded cluster.
Never use it on a real cluster: it leaves every certificate able to do everything."""

from __future__ import annotations

from typing import Any

import arena.cluster.roles


def dask_setup(server: Any) -> None:
    """Mark the process as checked (``arena.cluster.roles.installed()``) and check nothing."""
    arena.cluster.roles._GUARDS["unchecked (bench)"] = None  # type: ignore[assignment]
