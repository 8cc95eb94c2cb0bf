"""A real ladder on this machine: ``arena ladder`` over a field of bot variants, with a bot
submitted mid-run, a kill -9 and a resume, locally and on a Dask cluster, against a long
round robin of the same field.

Usage::

    python bench/ladder_real.py [--dir DIR] [--count 30] [--seconds 600] [--workers 2]
        [--submit-at 180] [--kill-at 360] [--dask-seconds 240] [--reference-sets 1500]
        [--seed 1] [--no-dask] [--no-local] [--no-ladder] [--no-reference] [--quick]

Each phase uses the real command line in subprocesses, as an organiser would:

1. ``bench/variants.py`` writes ``count + 1`` bot files; a fresh database gets the first
   ``count`` with ``arena submit`` (owner key in ``$ARENA_OWNER_KEY``).
2. ``arena ladder --workers N --seconds T`` runs as a subprocess. At ``--submit-at`` another
   process submits the last variant; the time until its first set is stored is measured (the
   database polled every 0.2 s). At ``--kill-at`` the ladder gets SIGKILL (the parent only,
   as a crash would); the database is checked (every finished set has its six matches, an
   unfinished one none), and the same command is started again for the rest of the time.
   At the end: every set finished before the kill is still there with the same matches,
   the sets in flight at the kill are finished (replayed) or not, sets/s and matches/s over
   the ladder's wall time, the longest wait of any bot (in sets scheduled and in seconds),
   and the ladder's order.
3. The same on a Dask cluster on this machine: ``arena cluster init`` certificates, a
   ``dask scheduler`` and ``--workers`` ``dask worker`` processes over TLS on 127.0.0.1
   (``bench/cluster.py``), ``arena ladder --cluster`` on a copy of the database as it was
   once the field was submitted (a fresh ladder of the same bots), for ``--dask-seconds``
   with the submission and the kill at the same shares of its time.
4. The reference: a duplicate round robin of the same ``count + 1`` bots, one deal seed per
   triple, on a uniform sample of ``--reference-sets`` of the C(n, 3) triples (all of them
   if fewer), through :func:`arena.tournaments.tournament.run`; Kendall's tau between its order and
   each ladder's.

Everything stays in ``--dir`` (default: a new temporary folder): the databases, the logs,
the bot files and ``results.json``. Prints one line per measure; ``--quick`` runs a few
bots for seconds (what the test runs). Into the same ``--dir``, ``--no-local`` runs the Dask
ladder alone and ``--no-ladder`` the round robin alone (a round robin cut short resumes),
each against the phases already there.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
sys.path.insert(0, str(BENCH))
sys.path.insert(0, str(BENCH.parent))

import ladder_real_db as ldb  # noqa: E402
import variants  # noqa: E402
from scipy import stats  # type: ignore[import-untyped]  # noqa: E402

from arena.store import Store  # noqa: E402
from arena.tournaments import tournament  # noqa: E402
from arena.tournaments.schedules import FixedSchedule  # noqa: E402
from arena.tournaments.tournament import Plan, RunSettings  # noqa: E402

ARENA = str(Path(sys.executable).with_name("arena"))
POLL = 0.2


def run_arena(
    args: list[str], env: dict[str, str], log: Path | None = None
) -> subprocess.CompletedProcess[str]:
    """``arena ARGS`` to completion; its output appended to ``log``. Raises on failure."""
    done = subprocess.run([ARENA, *args], env=env, capture_output=True, text=True, timeout=600)
    if log is not None:
        with log.open("a") as f:
            f.write(f"$ arena {' '.join(args)}\n{done.stdout}{done.stderr}")
    if done.returncode != 0:
        raise RuntimeError(f"arena {' '.join(args[:2])} failed: {done.stderr.strip()[-400:]}")
    return done


@dataclass
class Phase:
    """One ladder run (local or Dask) and what was measured in it."""

    label: str
    db: str = ""
    seconds: float = 0.0
    """Wall time of the two ladder processes together."""
    sets: int = 0
    matches: int = 0
    submit_seconds: float = 0.0
    """How long the mid-run ``arena submit`` took."""
    first_set_seconds: float | None = None
    """From the submission's end to its first set stored (None: never)."""
    first_set_steps: int | None = None
    """Sets scheduled from its joining to its first set (0: the very step it joined at)."""
    killed_finished: int = 0
    killed_in_flight: list[int] = field(default_factory=list)
    killed_whole: bool = False
    orphans: int = 0
    """Processes of the killed ladder still alive 3 s after the kill (then killed)."""
    kept: bool = False
    """Every set finished before the kill still stored, with the same matches."""
    replayed: list[int] = field(default_factory=list)
    lost: list[int] = field(default_factory=list)
    whole: bool = False
    wait_sets: int = 0
    wait_sets_bot: str = ""
    wait_seconds: float = 0.0
    wait_seconds_bot: str = ""
    order: list[str] = field(default_factory=list)
    exits: list[int] = field(default_factory=list)
    """Exit codes of the first (killed: -9) and the resumed ladder process."""


class Ladder:
    """``arena ladder`` as a subprocess of its own session (so its workers can be found)."""

    def __init__(self, args: list[str], env: dict[str, str], log: Path) -> None:
        self.log = log.open("ab")
        self.started = time.monotonic()
        self.proc = subprocess.Popen(
            [ARENA, "ladder", *args],
            env=env,
            stdout=self.log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def wait(self, timeout: float) -> int:
        """Its exit code; killed with its session when it overruns ``timeout``."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.send_signal(signal.SIGTERM)
            code = self.proc.wait(60)
        self.log.close()
        return code

    def kill9(self) -> int:
        """SIGKILL to the ladder process alone; then whatever of its session outlived it."""
        self.proc.kill()
        self.proc.wait()
        self.log.close()
        time.sleep(3)
        left = _session(self.proc.pid)
        for pid in left:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        return len(left)

    @property
    def elapsed(self) -> float:
        """Seconds since it started."""
        return time.monotonic() - self.started


def _session(sid: int) -> list[int]:
    """The live processes of session ``sid``."""
    found = []
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                raw = Path(f"/proc/{name}/stat").read_text()
            except OSError:
                continue
            fields = raw[raw.rindex(")") + 2 :].split()
            if int(fields[3]) == sid and fields[0] != "Z":
                found.append(int(name))
    return found


def _until(deadline: float, check: Callable[[], bool]) -> bool:
    """Poll ``check`` until it holds or ``deadline`` (monotonic) passes."""
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(POLL)
    return check()


def _lid(db: Path, deadline: float) -> str:
    found: list[str] = []

    def ready() -> bool:
        lid = db.exists() and ldb.ladder_id(db)
        if lid:
            found.append(lid)
        return bool(lid)

    if not _until(deadline, ready):
        raise RuntimeError(f"no ladder appeared in {db}")
    return found[0]


def run_phase(
    phase: Phase,
    db: Path,
    ladder_args: list[str],
    late: Path,
    late_name: str,
    times: tuple[float, float, float],
    env: dict[str, str],
) -> Phase:
    """One ladder of ``times`` = (seconds, submit at, kill at): see the module's docstring."""
    seconds, submit_at, kill_at = times
    phase.db = str(db)
    log = db.with_suffix(".out")
    first = Ladder([*ladder_args, "--seconds", str(int(seconds))], env, log)
    lid = _lid(db, time.monotonic() + 120)
    _until(first.started + submit_at, lambda: first.proc.poll() is not None)
    t0 = time.monotonic()
    run_arena(["submit", str(late), "--db", str(db)], env, log)
    submitted = time.monotonic()
    phase.submit_seconds = submitted - t0
    version = ldb.version_of(db, late_name)
    assert version is not None, late_name
    seen: list[ldb.LadderSet] = []

    def first_set() -> bool:
        s = ldb.finished_with(db, lid, version)
        if s is not None and not seen:
            seen.append(s)
            phase.first_set_seconds = time.monotonic() - submitted
        return bool(seen)

    _until(min(submitted + 60, first.started + kill_at), first_set)
    if _until(first.started + kill_at, lambda: first.proc.poll() is not None):
        tail = log.read_text(errors="replace")[-600:]
        raise RuntimeError(f"arena ladder ended before the kill ({first.proc.returncode}): {tail}")
    before = ldb.match_ids(db, lid)
    ran = first.elapsed
    phase.orphans = first.kill9()
    phase.exits.append(first.proc.returncode)
    check = ldb.integrity(db, lid)
    phase.killed_finished, phase.killed_whole = check.finished, check.whole
    phase.killed_in_flight = check.in_flight
    rest = max(10.0, seconds - ran)
    second = Ladder([*ladder_args, "--seconds", str(int(rest))], env, log)
    if not seen:
        _until(second.started + 60, first_set)
    phase.exits.append(second.wait(rest + 300))
    phase.seconds = ran + second.elapsed
    _finish(phase, db, lid, before, seen[0].step if seen else None, version)
    return phase


def _finish(
    phase: Phase, db: Path, lid: str, before: set[str], first_step: int | None, version: int
) -> None:
    """Read the end of a phase from its database."""
    after = ldb.integrity(db, lid)
    phase.whole = after.whole
    phase.kept = before <= ldb.match_ids(db, lid)
    done = {s.step for s in ldb.sets(db, lid) if s.finished_at is not None}
    phase.replayed = [s for s in phase.killed_in_flight if s in done]
    phase.lost = [s for s in phase.killed_in_flight if s not in done]
    phase.sets, phase.matches = ldb.counts(db, lid)
    wait = ldb.longest_wait(db, lid)
    phase.wait_sets, phase.wait_sets_bot = wait.sets, wait.sets_bot
    phase.wait_seconds, phase.wait_seconds_bot = wait.seconds, wait.seconds_bot
    phase.order = ldb.order(db, lid)
    joined = ldb.joined_step(db, lid, version)
    if first_step is not None and joined is not None:
        phase.first_set_steps = first_step - joined


def submit_field(db: Path, files: list[Path], env: dict[str, str]) -> float:
    """``arena submit`` each file into ``db``; the seconds it took."""
    started = time.monotonic()
    for path in files:
        run_arena(["submit", str(path), "--db", str(db)], env, db.with_suffix(".out"))
    return time.monotonic() - started


def reference(db: Path, files: list[Path], sets: int, seed: int, workers: int) -> dict[str, Any]:
    """A duplicate round robin of ``files`` (one deal seed per triple) on a uniform sample of
    ``sets`` triples; its order and size."""
    chosen: dict[str, int] = {}

    def sample(plan: Plan, workers: int) -> None:
        assert isinstance(plan.schedule, FixedSchedule)
        keys = sorted({m.set_key for m in plan.schedule.matches})
        keep = set(random.Random(seed).sample(keys, min(sets, len(keys))))
        subset = [m for m in plan.schedule.matches if m.set_key in keep]
        plan.schedule = FixedSchedule(plan.tid, subset, set())
        chosen.update(triples=len(keys), sets=len(keep))

    started = time.monotonic()
    with Store(db) as store:  # planned, narrowed to the sample, then played
        plan = tournament.prepare(
            store, [str(f) for f in files], seed=seed, settings=RunSettings(rounds=1)
        )
        sample(plan, workers)
        result = tournament.run(store, plan, workers=workers, log_path=Path(db).with_suffix(".log"))
    took = time.monotonic() - started
    if not result.completed:
        raise RuntimeError("the round robin was interrupted: run the same command to finish it")
    return {
        "triples": chosen["triples"],
        "sets": chosen["sets"],
        "matches": result.already + result.played,
        "played_now": result.played,
        "seconds": took,
        "order": ldb.order(db, result.tid),
    }


def tau(a: list[str], b: list[str]) -> float:
    """Kendall's tau between two orders of (the common part of) one field."""
    common = [n for n in a if n in set(b)]
    pos = {n: i for i, n in enumerate(b)}
    return float(stats.kendalltau(range(len(common)), [pos[n] for n in common]).statistic)


def dask_phase(
    work: Path, args: argparse.Namespace, late: tuple[Path, str], env: dict[str, str]
) -> Phase:
    """The same ladder on a local Dask cluster over TLS, from a copy of the database as it
    was when the field was submitted (``submitted.db``): a fresh ladder on the same bots."""
    import cluster as dask_bench

    certs = work / "certs"
    if not (certs / "ca.pem").exists():
        names = [a for k in range(args.workers) for a in ("--worker", f"w{k + 1}")]
        run_arena(["cluster", "init", str(certs), "--host", "127.0.0.1", *names], env)
    address, procs = dask_bench.start_cluster(work / "dask", args.workers, True, certs)
    try:
        db = work / "dask.db"
        ldb.copy(work / "submitted.db", db)  # the field as submitted, before any ladder
        ladder_args = ["--db", str(db), "--seed", str(args.seed), "--cluster", address]
        ladder_args += ["--cluster-certs", str(certs)]
        share = args.dask_seconds / args.seconds
        times = (args.dask_seconds, args.submit_at * share, args.kill_at * share)
        phase = Phase(f"dask, {args.workers} workers")
        return run_phase(phase, db, ladder_args, late[0], late[1], times, env)
    finally:
        dask_bench.stop_cluster(procs)


def show(phase: Phase) -> None:
    """One block of lines per phase."""
    p = phase
    print(f"{p.label}: {p.sets} sets, {p.matches} matches in {p.seconds:.0f} s: "
          f"{p.sets / p.seconds:.3f} sets/s, {p.matches / p.seconds:.2f} matches/s")  # fmt: skip
    first = "never" if p.first_set_seconds is None else f"{p.first_set_seconds:.1f} s"
    print(f"{p.label}: mid-run submission took {p.submit_seconds:.1f} s; its first set stored "
          f"after {first} ({p.first_set_steps} sets scheduled before it)")  # fmt: skip
    print(f"{p.label}: kill -9 with {p.killed_finished} sets finished, {len(p.killed_in_flight)} "
          f"in flight; whole sets only: {p.killed_whole}; processes left: {p.orphans}")  # fmt: skip
    print(f"{p.label}: resumed: finished sets kept: {p.kept}; in flight replayed "
          f"{len(p.replayed)}, lost {len(p.lost)}; whole sets only: {p.whole}; "
          f"exits {p.exits}")  # fmt: skip
    print(f"{p.label}: longest wait {p.wait_sets} sets ({p.wait_sets_bot}), "
          f"{p.wait_seconds:.1f} s ({p.wait_seconds_bot})")  # fmt: skip
    print(f"{p.label}: order: {' '.join(p.order)}")


def settings(argv: list[str] | None) -> argparse.Namespace:
    """The command line (``--quick``: a few bots for seconds)."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dir", type=Path, help="work folder (default: a new temporary one)")
    ap.add_argument("--count", type=int, default=30, help="bots at the start")
    ap.add_argument("--seconds", type=float, default=600, help="the local ladder's time")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--submit-at", type=float, default=180, help="second of the submission")
    ap.add_argument("--kill-at", type=float, default=360, help="second of the kill -9")
    ap.add_argument("--dask-seconds", type=float, default=240, help="the Dask ladder's time")
    ap.add_argument("--reference-sets", type=int, default=1500, help="triples sampled")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--no-dask", action="store_true")
    ap.add_argument(
        "--no-local",
        action="store_true",
        help="only the Dask ladder (the local one of an earlier run into --dir kept)",
    )
    ap.add_argument("--no-reference", action="store_true")
    ap.add_argument(
        "--no-ladder",
        action="store_true",
        help="only the round robin (against the ladders of an earlier run into --dir, if any)",
    )
    ap.add_argument("--quick", action="store_true", help="5 bots, 40 s, 10 reference sets")
    args = ap.parse_args(argv)
    if args.quick:
        args.count, args.seconds, args.submit_at, args.kill_at = 5, 40, 8, 20
        args.dask_seconds, args.reference_sets = 40, 10
    if args.count < 3 or args.workers < 1 or args.reference_sets < 1:
        ap.exit(1, "error: --count takes at least 3, --workers and --reference-sets at least 1\n")
    if not 0 < args.submit_at < args.kill_at < args.seconds:
        ap.exit(1, "error: the times must be 0 < --submit-at < --kill-at < --seconds\n")
    return args


def ladders(
    work: Path, args: argparse.Namespace, files: list[Path], late_name: str, env: dict[str, str]
) -> list[Phase]:
    """The local ladder, then (unless ``--no-dask``) the Dask one; each shown as it ends."""
    field, late = files[:-1], files[-1]
    if args.no_local:
        phase = dask_phase(work, args, (late, late_name), env)
        show(phase)
        return [phase]
    db = work / "ladder.db"
    took = submit_field(db, field, env)
    print(f"submitted {len(field)} bots in {took:.1f} s")
    ldb.copy(db, work / "submitted.db")
    ladder_args = ["--db", str(db), "--workers", str(args.workers), "--seed", str(args.seed)]
    times = (args.seconds, args.submit_at, args.kill_at)
    local = run_phase(Phase(f"local, {args.workers} workers"), db, ladder_args, late, late_name,
                      times, env)  # fmt: skip
    show(local)
    phases = [local]
    print(f"load {os.getloadavg()[0]:.2f}")
    save(work, [local])
    if not args.no_dask:
        phases.append(dask_phase(work, args, (late, late_name), env))
        show(phases[-1])
    return phases


def save(work: Path, phases: list[Phase]) -> None:
    """Add ``phases`` to ``results.json`` in ``work`` (a phase of the same label replaced)."""
    saved = work / "results.json"
    results = json.loads(saved.read_text()) if saved.exists() else {}
    kept = [p for p in results.get("phases", []) if p["label"] not in {q.label for q in phases}]
    results["phases"] = kept + [asdict(p) for p in phases]
    saved.write_text(json.dumps(results, indent=1))


def reference_once(work: Path, files: list[Path], args: argparse.Namespace) -> dict[str, Any]:
    """The round robin of :func:`reference`, or the one already in ``work`` (reference.json)
    when it was run with the same bots, seed and size."""
    saved = work / "reference.json"
    key = {"bots": [p.name for p in files], "seed": args.seed, "sets": args.reference_sets}
    if saved.exists():
        old = json.loads(saved.read_text())
        if old.get("key") == key:
            print("reference: the one already in the work folder")
            return dict(old)
    ref = reference(work / "reference.db", files, args.reference_sets, args.seed, args.workers)
    saved.write_text(json.dumps({"key": key, **ref}, indent=1))
    return ref


def main(argv: list[str] | None = None) -> int:
    args = settings(argv)
    work = args.dir or Path(tempfile.mkdtemp(prefix="ladder-real-"))
    work.mkdir(parents=True, exist_ok=True)
    # One owner key for every submission of the work folder, the round robin's included (a
    # rerun into the same folder stores new versions under the same owner).
    key = work / "owner.key"
    if not key.exists():
        key.touch(0o600)
        key.write_text(secrets.token_hex(32))
    os.environ["ARENA_OWNER_KEY"] = key.read_text().strip()
    env = dict(os.environ)
    made = variants.write(work / "bots", args.count + 1, args.seed)
    files = [path for _, path in made]
    late_name = made[-1][0].name
    print(f"work folder {work}; {len(files)} bots; load {os.getloadavg()[0]:.2f}")
    results: dict[str, object] = {"args": {k: str(v) for k, v in vars(args).items()}}
    if not args.no_ladder:
        save(work, ladders(work, args, files, late_name, env))
    # The ladders of this run, and those of earlier runs into the same folder.
    saved = work / "results.json"
    old = json.loads(saved.read_text()) if saved.exists() else {}
    phases = [Phase(**p) for p in old.get("phases", [])]
    results["phases"] = [asdict(p) for p in phases]
    if not args.no_reference:
        ref = reference_once(work, files, args)
        print(f"reference: round robin of {ref['sets']} of {ref['triples']} triples, "
              f"{ref['matches']} matches ({ref['played_now']} played in "
              f"{ref['seconds']:.0f} s)")  # fmt: skip
        print(f"reference: order: {' '.join(ref['order'])}")
        for p in phases:
            t = tau(p.order, ref["order"])
            print(f"{p.label}: Kendall's tau against the reference {t:.3f}")
            results[f"tau {p.label}"] = t
        results["reference"] = ref
    print(f"load {os.getloadavg()[0]:.2f}")
    saved.write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
