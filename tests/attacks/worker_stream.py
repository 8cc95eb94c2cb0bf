"""A certified worker abuses the stream it opened by registering (``dask worker ...
--preload worker_stream.py``), chosen by ``ARENA_HOSTILE_STREAM``:

- ``submit``: sends a client's message (``update-graph``, a task submission) on it;
- ``spoof``: reports a task finished in the name of ``ARENA_HOSTILE_VICTIM``, another worker.

The scheduler must close the stream (and drop this worker) at the first such message.
"""

from __future__ import annotations

import os
from typing import Any


def _message() -> dict[str, Any]:
    if os.environ.get("ARENA_HOSTILE_STREAM") == "spoof":
        return {
            "op": "task-finished",
            "worker": os.environ["ARENA_HOSTILE_VICTIM"],
            "key": "rigged",
            "status": "OK",
            "nbytes": 1,
            "stimulus_id": "attack",
        }
    return {"op": "update-graph", "client": "attacker", "keys": ["rigged"]}


def dask_setup(worker: Any) -> None:
    """Dask's preload hook: once registered (the stream is up), send the message every second."""

    def send() -> None:
        stream = getattr(worker, "batched_stream", None)
        if stream is not None and stream.comm is not None and not stream.comm.closed():
            stream.send(_message())
        worker.loop.call_later(1.0, send)

    worker.loop.call_later(1.0, send)
