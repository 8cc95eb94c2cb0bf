"""Load test: 200 concurrent viewers of the live pages (arena/web/pages.py) from the loopback
while a ladder runs, side by side with ``arena serve`` (the static site) as the baseline.

    python bench/web_load.py [--viewers 200] [--seconds 30] [--workers 1] [--dir DIR]

1. A database of a real ladder: ``arena submit`` of a copy of the random bot, then ``arena
   ladder random heuristic --max-sets N`` (sandboxed bots, worker processes), its site
   rendered with ``--site``.
2. ``arena ladder`` runs on again in a subprocess for the whole benchmark (``--seconds``),
   storing sets and re-rendering its site as it goes.
3. For each server in turn, in a subprocess of its own: the web application
   (``Starlette(routes=pages.routes(web))`` with the static files, served by uvicorn; this
   script with ``--serve``), then ``arena serve --db DB --out SITE``. ``--viewers`` viewers
   (one httpx async client in this process, a connection each) fetch the front page, the
   ladder's page, every bot's page and a replay, in turn, as fast as they are answered, for
   ``--seconds``.

Printed per server: requests, requests/s, p50 and p99 latency, the answers other than 200
(status: count), transport errors, the data versions the live pages were answered at, and the
server process's CPU per request; then the ratios. The viewers are split over ``--clients``
load generator processes on the same machine: on a small machine they, not the server, may
be what limits requests/s (then the server's CPU per request is the figure to compare).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import os
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ARENA = str(Path(sys.executable).with_name("arena"))
BOTS = ("random", "heuristic")
"""The bundled bots of the ladder, with a submitted copy of random (``random2``): quick sets."""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def serve_web(db: str, port: int) -> None:
    """``arena web``'s whole application over ``db`` on 127.0.0.1:``port`` (``--serve``): its
    guards, security headers and limits, served as ``arena web`` serves it."""
    import uvicorn

    from arena.web.app import create_app, uvicorn_config
    from arena.web.context import WebSettings

    settings = WebSettings(Path(db), port=port)
    config = uvicorn_config(create_app(settings), settings)
    config.backlog = 2048
    uvicorn.Server(config).run()


@dataclass
class Result:
    name: str
    seconds: float
    latencies: list[float] = field(default_factory=list)
    statuses: Counter[int] = field(default_factory=Counter)
    errors: Counter[str] = field(default_factory=Counter)
    versions: set[str] = field(default_factory=set)
    """The data versions the live pages were answered at (``X-Arena-Version``)."""
    server_cpu: float = 0.0
    """CPU seconds the server process spent meanwhile."""

    def line(self) -> str:
        lat = sorted(self.latencies)
        p50 = statistics.median(lat) * 1000 if lat else float("nan")
        p99 = lat[min(len(lat) - 1, int(0.99 * len(lat)))] * 1000 if lat else float("nan")
        other = {s: n for s, n in self.statuses.items() if s != 200}
        return (
            f"{self.name:12} {len(lat):7d} requests  {len(lat) / self.seconds:8.1f} req/s  "
            f"p50 {p50:7.1f} ms  p99 {p99:7.1f} ms  non-200 {other or 0}  "
            f"errors {dict(self.errors) or 0}  "
            f"server CPU {1000 * self.server_cpu / max(1, len(lat)):.2f} ms/request"
            + (f"  data versions {len(self.versions)}" if self.versions else "")
        )

    @property
    def rate(self) -> float:
        return len(self.latencies) / self.seconds

    def p99(self) -> float:
        lat = sorted(self.latencies)
        return lat[min(len(lat) - 1, int(0.99 * len(lat)))] if lat else float("nan")


async def _viewer(
    base: str, urls: list[str], start: int, until: float, result: Result, tls: ssl.SSLContext
) -> None:
    import httpx

    # A client of its own, as a browser is: one shared pool of 200 connections costs httpx
    # more CPU per request than the servers under test spend (its pool is scanned per
    # request). One TLS context for all (never used on http://, but costly to make).
    async with httpx.AsyncClient(base_url=base, timeout=30, verify=tls) as client:
        i = start
        while time.monotonic() < until:
            url = urls[i % len(urls)]
            i += 1
            t0 = time.perf_counter()
            try:
                r = await client.get(url)
            except Exception as e:  # noqa: BLE001 (counted, reported)
                result.errors[type(e).__name__] += 1
                await asyncio.sleep(0.05)
                continue
            result.latencies.append(time.perf_counter() - t0)
            result.statuses[r.status_code] += 1
            if "x-arena-version" in r.headers:
                result.versions.add(r.headers["x-arena-version"])


async def load(name: str, base: str, urls: list[str], viewers: int, seconds: float) -> Result:
    """``viewers`` clients fetching ``urls`` in turn from ``base`` for ``seconds``."""
    result = Result(name, seconds)
    until = time.monotonic() + seconds
    tls = ssl.create_default_context()
    await asyncio.gather(*(_viewer(base, urls, k, until, result, tls) for k in range(viewers)))
    return result


def _load_part(args: tuple[str, str, list[str], int, float, int]) -> Result:
    name, base, urls, viewers, seconds, part = args
    return asyncio.run(load(name, base, urls[part:] + urls[:part], viewers, seconds))


def load_from(
    processes: int, name: str, base: str, urls: list[str], viewers: int, seconds: float
) -> Result:
    """:func:`load` split over ``processes`` load generators (one Python process's CPU is
    not enough to keep 200 viewers busy), their figures merged."""
    shares = [viewers // processes + (k < viewers % processes) for k in range(processes)]
    jobs = [(name, base, urls, n, seconds, k) for k, n in enumerate(shares) if n]
    with concurrent.futures.ProcessPoolExecutor(len(jobs)) as pool:
        parts = list(pool.map(_load_part, jobs))
    merged = Result(name, seconds)
    for r in parts:
        merged.latencies += r.latencies
        merged.statuses.update(r.statuses)
        merged.errors.update(r.errors)
        merged.versions |= r.versions
    return merged


def _wait_up(base: str, proc: subprocess.Popen[bytes], path: str = "/index.html") -> None:
    import httpx

    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise SystemExit(f"the server exited with {proc.returncode}")
        try:
            if httpx.get(base + path, timeout=5).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.2)
    raise SystemExit(f"no answer from {base}")


def _urls(db: Path, site: Path) -> list[str]:
    from arena.store import Store

    with Store(db, create=False) as store:
        lid = store.tournaments()[0].tournament.id
        match = store.conn.execute(
            "SELECT id FROM matches WHERE tournament_id = ? ORDER BY id DESC LIMIT 1", (lid,)
        ).fetchone()[0]
    bots = sorted(p.name for p in (site / "bots").glob("*.html"))
    return ["/index.html", f"/tournaments/{lid}.html", *(f"/bots/{b}" for b in bots),
            f"/matches/{match}.html"]  # fmt: skip


def _cpu(pid: int) -> float:
    """CPU seconds (user + system) process ``pid`` has spent so far."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _sets(db: Path) -> int:
    from arena.store import Store

    with Store(db, create=False) as store:
        q = "SELECT COUNT(*) FROM ladder_sets WHERE finished_at IS NOT NULL"
        return int(store.conn.execute(q).fetchone()[0])


def _run(args: list[str], **kw) -> subprocess.Popen[bytes]:  # noqa: ANN003
    return subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, **kw)


def _stop(proc: subprocess.Popen[bytes]) -> None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--viewers", type=int, default=200)
    p.add_argument("--seconds", type=float, default=30.0)
    p.add_argument("--workers", type=int, default=1, help="the ladder's worker processes")
    p.add_argument("--clients", type=int, default=2, help="load generator processes")
    p.add_argument("--warm-sets", type=int, default=4)
    p.add_argument("--dir", type=Path)
    p.add_argument("--serve", nargs=2, metavar=("DB", "PORT"), help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.serve:
        serve_web(a.serve[0], int(a.serve[1]))
        return
    root = a.dir or Path(tempfile.mkdtemp(prefix="arena-web-load-"))
    root.mkdir(parents=True, exist_ok=True)
    db, site = root / "arena.db", root / "site"
    ladder = [ARENA, "ladder", *BOTS, "--db", str(db), "--workers", str(a.workers)]
    ladder += ["--site", str(site)]
    started = time.perf_counter()
    copy = subprocess.run(
        [ARENA, "submit", str(HERE.parent / "bots" / "random_bot.py"), "--name", "random2",
         "--db", str(db)], capture_output=True, text=True,
    )  # fmt: skip
    if copy.returncode != 0:
        raise SystemExit(copy.stderr.strip() or "arena submit failed")
    warm = subprocess.run([*ladder, "--max-sets", str(a.warm_sets)], capture_output=True, text=True)
    if warm.returncode != 0:
        raise SystemExit(warm.stderr.strip().splitlines()[-1] if warm.stderr else "ladder failed")
    print(f"ladder warmed up: {a.warm_sets} sets in {time.perf_counter() - started:.1f} s")
    urls = _urls(db, site)
    print(f"{len(urls)} pages per round: {', '.join(urls)}")
    running = _run([*ladder, "--seconds", str(3 * a.seconds + 60)])
    results = []
    stored = _sets(db)
    try:
        servers = {
            "arena web": [sys.executable, __file__, "--serve", str(db), "{port}"],
            "arena serve": [ARENA, "serve", "--db", str(db), "--out", str(site), "--port",
                            "{port}", "--quiet"],
        }  # fmt: skip
        for name, command in servers.items():
            port = _free_port()
            proc = _run([c.replace("{port}", str(port)) for c in command])
            base = f"http://127.0.0.1:{port}"
            try:
                _wait_up(base, proc)
                cpu = _cpu(proc.pid)
                results.append(load_from(a.clients, name, base, urls, a.viewers, a.seconds))
                results[-1].server_cpu = _cpu(proc.pid) - cpu
            finally:
                _stop(proc)
            now = _sets(db)
            print(f"{results[-1].line()}  sets stored meanwhile {now - stored}", flush=True)
            stored = now
    finally:
        _stop(running)
    print(f"ladder sets stored in all: {_sets(db)}")
    web, static = results
    per = [r.server_cpu / max(1, len(r.latencies)) for r in (web, static)]
    print(
        f"web/serve: requests/s x{web.rate / static.rate:.2f}, "
        f"p99 x{web.p99() / static.p99():.2f}, server CPU per request x{per[0] / per[1]:.2f} "
        f"({a.viewers} viewers, {a.seconds:g} s each, {os.cpu_count()} cores, load average "
        f"{os.getloadavg()[0]:.1f})"
    )


if __name__ == "__main__":
    main()
