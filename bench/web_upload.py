"""The wait of an upload through ``arena web``: how soon ``POST /api/bots`` answers, and when
the check is done, side by side with ``arena submit`` of the same kind of bot.

Run by hand (it is a benchmark, not a test)::

    python bench/web_upload.py               # 5 rounds
    python bench/web_upload.py --rounds 9    # steadier

``arena web``'s application runs under uvicorn on 127.0.0.1 in this process (a thread), over a
new database with one author. Each round, in turn: an upload of a trivial bot (a new name each
time) through the API, polled every 20 ms until its check is done; then ``arena submit`` of
another trivial bot into the same database, in a fresh process, with the author's token as its
owner key. Printed: the medians of the answer (202), of the upload until stored, of
``arena submit``, and their ratio; and how many cores other processes kept busy meanwhile.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import replace
from pathlib import Path

import httpx
import uvicorn

from arena.api import Arena
from arena.web.app import create_app, uvicorn_config
from arena.web.context import WebSettings
from arena.web.ratelimit import RateRules

BOT = (
    "class Bot:\n    name = {name!r}\n\n    def act(self, obs):\n        return obs['legal'][-1]\n"
)


def busy_cores() -> tuple[int, int]:
    """Busy and total jiffies of every core so far (from ``/proc/stat``)."""
    with open("/proc/stat", encoding="ascii") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    idle = fields[3] + fields[4]
    return sum(fields) - idle, sum(fields)


def serve(db: Path) -> tuple[uvicorn.Server, str]:
    """The application on a free port, started; the server and its URL."""
    settings = replace(WebSettings(db), port=0)
    rates = RateRules(per_address="10000/minute", uploads="10000/minute")
    server = uvicorn.Server(uvicorn_config(create_app(settings, rates=rates), settings))
    threading.Thread(target=server.run, daemon=True).start()
    while not server.started:
        time.sleep(0.01)
    port = server.servers[0].sockets[0].getsockname()[1]
    return server, f"http://127.0.0.1:{port}"


def one_upload(c: httpx.Client, token: str, name: str) -> tuple[float, float]:
    """Seconds until the 202, and until the check is done."""
    auth = {"authorization": f"Bearer {token}"}
    start = time.perf_counter()
    r = c.post("/api/bots", headers=auth, files={"file": (f"{name}.py", BOT.format(name=name))})
    answered = time.perf_counter() - start
    assert r.status_code == 202, r.text
    while (status := c.get(r.json()["status_url"], headers=auth).json())["status"] == "pending":
        time.sleep(0.02)
    assert status["status"] == "stored", status
    return answered, time.perf_counter() - start


def one_submit(db: Path, token: str, name: str, folder: Path) -> float:
    """Seconds of ``arena submit`` in a fresh process."""
    path = folder / f"{name}.py"
    path.write_text(BOT.format(name=name), encoding="utf-8")
    env = {**os.environ, "ARENA_OWNER_KEY": token}
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "arena.cli", "submit", str(path), "--db", str(db)],
        check=True, capture_output=True, env=env,
    )  # fmt: skip
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        db = folder / "arena.db"
        with Arena(db) as arena:
            token = arena.add_author("bench")[1]
        server, url = serve(db)
        answers, uploads, submits = [], [], []
        before = busy_cores()
        with httpx.Client(base_url=url, timeout=300) as c:
            for i in range(args.rounds):
                answered, stored = one_upload(c, token, f"web{i}")
                answers.append(answered)
                uploads.append(stored)
                submits.append(one_submit(db, token, f"cli{i}", folder))
        after = busy_cores()
        server.should_exit = True
    cores = os.cpu_count() or 1
    busy = cores * (after[0] - before[0]) / max(1, after[1] - before[1])
    upload, submit = statistics.median(uploads), statistics.median(submits)
    print(f"rounds: {args.rounds}; cores busy meanwhile (all processes): {busy:.2f} of {cores}")
    print(f"POST /api/bots answered (202): {1000 * statistics.median(answers):.0f} ms")
    print(f"upload until stored:           {upload:.2f} s")
    print(f"arena submit:                  {submit:.2f} s")
    print(f"upload / arena submit:         {upload / submit:.2f}")


if __name__ == "__main__":
    main()
