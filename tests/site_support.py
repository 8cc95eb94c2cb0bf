"""Helpers for the site tests: real databases and HTML parsing.

``run_tournament`` runs a real ``arena run`` (sandboxed bots, worker processes) once per
test session and renders its site. ``store_tournament`` writes a small tournament through the
real store API (:class:`arena.store.Store`) with matches played by the real engine,
in-process, with trusted bots: the XSS test uses it to plant hostile names, authors, fault
messages and logs that a sandboxed ``arena run`` could not produce on demand.
"""

from __future__ import annotations

import contextlib
import hashlib
import random
import re
import subprocess
import sys
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from click.testing import CliRunner

from arena.cli import main
from arena.engine import Rules, play_match
from arena.matches import scheduler
from arena.matches.record import MatchRecord
from arena.matches.secrecy import SecretFile
from arena.sandbox.botfile import bundled
from arena.sandbox.values import forfeit_placements
from arena.store import LADDER, Store, now
from arena.tournaments.standings import current_standings

# Plays the last legal action. (Not the first: two first-legal players, such as a faulted
# bot's fallback and a first-legal bot, can tie at the top forever and reach the engine's hand
# limit, which makes the matches slow and the fixture long.)
LAST_BOT = """
class Bot:
    name = "last"
    author = "Site tests"

    def act(self, obs):
        return obs["legal"][-1]
"""

CRASHY_BOT = """
class Bot:
    name = "crashy"
    author = "Site tests"

    def act(self, obs):
        print("crashy thinks about", obs["phase"])
        if obs["phase"] == "play" and obs["hand_number"] >= 1:
            raise RuntimeError("crashy gives up in the second hand")
        return obs["legal"][0]
"""

RUN_BOTS = ("random", "heuristic", "last", "crashy")
"""The bots of :func:`run_tournament`, by name."""

_RUNS: dict[str, Path] = {}


def run_tournament(root: Path) -> Path:
    """``arena run`` of four bots (two bundled, two written here; ``crashy`` faults and
    prints) with one round into ``root``, once per session; returns ``root``.

    ``root`` then holds ``arena.db`` and ``site/`` (rendered by ``arena run`` itself), and
    ``site-logs/`` (``arena render --with-logs``).
    """
    key = str(root)
    if key in _RUNS:
        return _RUNS[key]
    root.mkdir(parents=True, exist_ok=True)
    (root / "last.py").write_text(LAST_BOT)
    (root / "crashy.py").write_text(CRASHY_BOT)
    files = [str(bundled("random_bot")), str(bundled("heuristic"))]
    files += [str(root / "last.py"), str(root / "crashy.py")]
    db = str(root / "arena.db")
    # A fixed deal secret: every run of the suite plays the same deals and seeds the bots
    # the same way, so the pages under test are the same on every machine.
    secret = root / "secret.json"
    secret.write_text(SecretFile(11, bytes(range(32))).to_json())
    args = ["run", *files, "--rounds", "1", "--seed", "11", "--workers", "2", "--db", db]
    args += ["--secret-file", str(secret)]
    result = CliRunner().invoke(main, [*args, "--out", str(root / "site")])
    assert result.exit_code == 0, result.output
    result = CliRunner().invoke(
        main, ["render", "--db", db, "--out", str(root / "site-logs"), "--with-logs"]
    )
    assert result.exit_code == 0, result.output
    _RUNS[key] = root
    return root


class FirstLegal:
    """Plays the first legal action (deterministic, fast)."""

    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0]


class RandomLegal:
    """Plays a uniformly random legal action from its own seeded generator."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, obs: dict[str, Any]) -> Any:
        return self.rng.choice(obs["legal"])


def store_tournament(
    db_path: Path,
    bots: Sequence[tuple[str, str | None]],
    *,
    rounds: int = 1,
    seed: int = 5,
    fault: tuple[str, str] | None = None,
    log: tuple[str, str] | None = None,
    shared_first: tuple[str, str] | None = None,
) -> str:
    """Play a duplicate round robin of ``bots`` (``(name, author)``) and store it.

    ``fault`` is ``(bot name, message)``: that bot's seat gets a recorded ``crash`` fault (and
    is placed last, behind both others, as a forfeit is) in each of its matches; ``log`` is
    ``(bot name, text)`` it "printed".
    ``shared_first`` names two bots that share first place in every match they play together
    under ``tie_policy="shared_win"`` (the third bot of such a match is placed last; other
    matches keep their played places). Returns the tournament id.
    """
    rules = Rules(tie_policy="shared_win") if shared_first else Rules()
    with Store(db_path) as store:
        versions = {}
        for i, (name, author) in enumerate(bots):
            v, _ = store.add_bot_version(name, f"class Bot:\n    n = {i}\n", f"bot_{i}.py", author)
            versions[name] = v
        entrants = [scheduler.Entrant(n, v.sha256, v.id) for n, v in versions.items()]
        config = {
            "bots": [{"name": e.name, "sha256": e.sha256} for e in entrants],
            "rounds": rounds,
            "seed": seed,
            "rules": rules.to_dict(),
            "limits": {"decision_seconds": 1.0, "memory_mb": 256},
        }
        tid = scheduler.tournament_id(config)
        total = scheduler.match_count(len(bots), rounds)
        store.ensure_tournament(tid, config, [v.id for v in versions.values()], total)
        records = []
        for spec in scheduler.schedule(tid, entrants, rounds, seed):
            names = [e.name for e in spec.seats]
            players = [
                FirstLegal() if k == 0 else RandomLegal(spec.seed * 3 + k)
                for k in (sorted(names).index(n) for n in names)
            ]
            m = play_match(players, seed=spec.seed, rules=rules)
            placements = list(m.placements)
            faults = []
            if fault and fault[0] in names:
                s = names.index(fault[0])
                faults.append({"seat": s, "kind": "crash", "message": fault[1], "decision": 3})
                placements = forfeit_placements(m.scores, {s})  # as the worker places it
            if shared_first and set(shared_first) <= set(names):
                placements = [1 if n in shared_first else 3 for n in names]
            logs = ["", "", ""]
            if log and log[0] in names:
                logs[names.index(log[0])] = log[1]
            records.append(
                {
                    "match_id": spec.match_id,
                    "bots": [versions[n].id for n in names],
                    "set_key": spec.set_key,
                    "round": spec.round,
                    "seating": spec.seating,
                    "seed": spec.seed,
                    "scores": m.scores,
                    "placements": placements,
                    "hands": [h.to_dict() for h in m.hands],
                    "truncated": m.truncated,
                    "duration_seconds": 0.01,
                    "faults": faults,
                    "stats": [
                        {
                            "decisions": 40,
                            "asked": 30,
                            "think_seconds": 0.003 * (s + 1),
                            "max_think_seconds": 0.001 * (s + 1),
                            "cpu_seconds": 0.002 * (s + 1),
                            "max_cpu_seconds": 0.0005 * (s + 1),
                            "clock_seconds": 0.004 * (s + 1),
                        }
                        for s in range(3)
                    ],  # fmt: skip
                    "logs": logs,
                }
            )
        store.write_results(tid, [MatchRecord.from_json(r) for r in records])
        current_standings(store, tid, refit=True)  # as at the end of `arena run`
        store.set_status(tid, "finished")
    return tid


def soup(path: Path) -> BeautifulSoup:
    """Parse an HTML file."""
    return BeautifulSoup(path.read_text(encoding="utf-8"), "html.parser")


def texts(nodes: Any) -> list[str]:
    """The stripped text of each node."""
    return [" ".join(n.get_text(" ", strip=True).split()) for n in nodes]


def console_script() -> str:
    """The installed ``arena`` entry point next to this interpreter."""
    path = Path(sys.executable).parent / "arena"
    assert path.is_file(), f"no console script at {path}: pip install -e .[test]"
    return str(path)


@contextlib.contextmanager
def serving(site: Path, db: Path | None = None) -> Iterator[str]:
    """``arena serve --port 0`` of ``site`` (and ``--db``) in its own process; yields the base
    URL it prints (``http://127.0.0.1:PORT/``) and stops the server afterwards."""
    extra = ["--db", str(db)] if db is not None else []
    proc = subprocess.Popen(
        [console_script(), "serve", "--out", str(site), "--port", "0", "--quiet", *extra],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:\d+/", line)
        assert found, (line, proc.stderr.read() if proc.poll() is not None else "")
        yield found.group(0)
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def _ladder_set(tid: str, step: int, versions: Sequence[int], rules: Rules) -> list[MatchRecord]:
    """The six seatings of one ladder set of these three versions, played by the engine."""
    out = []
    seed = 1000 + step
    for seating in range(6):
        order = [(seating + k) % 3 for k in range(3)]
        if seating >= 3:
            order.reverse()
        players = [FirstLegal() if k == 0 else RandomLegal(seed * 3 + k) for k in order]
        m = play_match(players, seed=seed, rules=rules)
        out.append(
            MatchRecord.from_json(
                {
                    "match_id": f"{tid[:8]}s{step}k{seating}", "set_key": f"set{step:05d}",
                    "bots": [versions[k] for k in order], "round": step, "seating": seating,
                    "seed": seed, "scores": m.scores, "placements": list(m.placements),
                    "hands": [h.to_dict() for h in m.hands], "truncated": m.truncated,
                    "duration_seconds": 0.01, "faults": [], "logs": ["", "", ""],
                    "stats": [{"decisions": 40, "asked": 30, "think_seconds": 0.003,
                               "max_think_seconds": 0.001, "cpu_seconds": 0.0,
                               "max_cpu_seconds": 0.0, "clock_seconds": 0.004}] * 3,
                }
            )
        )  # fmt: skip
    return out


def store_ladder(
    db_path: Path,
    names: Sequence[str],
    sets: int,
    *,
    epoch_sets: int = 2,
    running: int = 1,
    replace: str | None = None,
    retire: str | None = None,
    seed: int = 3,
    sources: Mapping[str, str] | None = None,
    owners: Mapping[str, str] | None = None,
) -> str:
    """A ladder (``kind = 'ladder'``) written through the store, its tables as ``arena
    ladder`` keeps them (docs/schema.md): ``sets`` finished sets of real matches played by the
    engine in-process, triples in turn, ``running`` sets in flight, epochs of ``epoch_sets``
    sets (all but the last closed, their secrets revealed) and its standings. ``replace``
    names a bot that submitted a second version after the first half (its first leaves the
    field as replaced); ``retire`` one retired then. ``sources`` and ``owners``: a bot's source
    and owner key, where given (else a source of its own, no owner). Returns the ladder's id."""
    rules = Rules()
    with Store(db_path) as store:
        versions = {
            n: store.add_bot_version(n, (sources or {}).get(n, f"class Bot:\n    n = {i}\n"),
                                     f"{n}.py", "Ladders", (owners or {}).get(n))[0].id
            for i, n in enumerate(names)
        }  # fmt: skip
        config = {"kind": "ladder", "seed": seed, "rules": rules.to_dict(), "limits": {},
                  "bundled": [], "epoch_sets": epoch_sets, "rounds": 0}  # fmt: skip
        tid = scheduler.tournament_id(config)
        store.ensure_tournament(tid, config, list(versions.values()), 0, kind=LADDER)
        conn, stamp = store.conn, now()
        with conn:
            for v in versions.values():
                conn.execute(
                    "INSERT INTO ladder_bots VALUES (?, ?, 0, ?, NULL, NULL, NULL)", (tid, v, stamp)
                )
        field = dict(versions)
        for step in range(sets + running):
            if step == sets // 2 and (replace or retire):
                _leave(store, tid, step, field, replace, retire)
            epoch = step // epoch_sets
            _open_epoch(store, tid, epoch, step, closed=epoch < (sets - 1) // epoch_sets)
            live = sorted(field.values())
            # Triples in turn (offsets 0, 1, 3: three different bots from four on).
            triple = [live[(step + o) % len(live)] for o in (0, 1, 3)] if len(live) > 3 else live
            ladder_set(store, tid, step, triple, epoch, finish=step < sets)
        current_standings(store, tid, refit=True)
    return tid


def ladder_set(
    store: Store, tid: str, step: int, triple: Sequence[int], epoch: int, *, finish: bool
) -> list[str]:
    """Schedule set ``step`` of the ladder (its ``ladder_sets`` row) and, with ``finish``,
    store its six matches, played by the engine, and mark it finished; the match ids."""
    conn = store.conn
    with conn:
        conn.execute(
            "INSERT INTO ladder_sets VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, NULL)",
            (tid, step, *triple, epoch, f"set{step:05d}", "information", now()),
        )
    if not finish:
        return []
    records = _ladder_set(tid, step, triple, Rules())
    store.write_results(tid, records)
    with conn:
        conn.execute(
            "UPDATE ladder_sets SET finished_at = ? WHERE ladder_id = ? AND step = ?",
            (now(), tid, step),
        )
    return [r.match_id for r in records]


def _open_epoch(store: Store, tid: str, epoch: int, step: int, *, closed: bool) -> None:
    if any(e.epoch == epoch for e in store.ladder_epochs(tid)):
        return
    # Raw writes: a fixed secret per epoch (Store.open_epoch draws a fresh one).
    conn = store.conn
    secret = hashlib.sha256(f"{tid}/{epoch}".encode()).hexdigest()
    commitment = hashlib.sha256(bytes.fromhex(secret)).hexdigest()
    stamp = now()
    with conn:
        cur = conn.execute(
            "INSERT INTO deal_secrets (seed, secret, commitment, origin, created_at, revealed_at) "
            "VALUES (?, ?, ?, 'ladder', ?, ?)",
            (epoch, secret, commitment, stamp, stamp if closed else None),
        )
        conn.execute(
            "INSERT INTO ladder_epochs VALUES (?, ?, ?, ?, ?, ?)",
            (tid, epoch, cur.lastrowid, step, stamp, stamp if closed else None),
        )


def _leave(
    store: Store,
    tid: str,
    step: int,
    field: dict[str, int],
    replace: str | None,
    retire: str | None,
) -> None:
    conn, stamp = store.conn, now()
    if replace:
        new, _ = store.add_bot_version(replace, "class Bot:\n    n = 'v2'\n", f"{replace}.py")
        with conn:
            conn.execute(
                "UPDATE ladder_bots SET left_step = ?, left_at = ?, left_reason = 'replaced' "
                "WHERE ladder_id = ? AND bot_version_id = ?",
                (step, stamp, tid, field[replace]),
            )
            conn.execute(
                "INSERT INTO ladder_bots VALUES (?, ?, ?, ?, NULL, NULL, NULL)",
                (tid, new.id, step, stamp),
            )
            conn.execute("INSERT INTO tournament_bots VALUES (?, ?)", (tid, new.id))
        field[replace] = new.id
    if retire:
        with conn:
            conn.execute("UPDATE bots SET retired_at = ? WHERE name = ?", (stamp, retire))
            conn.execute(
                "UPDATE ladder_bots SET left_step = ?, left_at = ?, left_reason = 'retired' "
                "WHERE ladder_id = ? AND bot_version_id = ?",
                (step, stamp, tid, field.pop(retire)),
            )
