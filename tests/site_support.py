"""Helpers for the site tests: real databases and HTML parsing.

``run_tournament`` runs a real ``arena run`` (sandboxed bots, worker processes) once per
test session and renders its site. ``store_tournament`` writes a small tournament through the
real store API (:class:`arena.store.Store`) with matches played by the real engine,
in-process, with trusted bots: the XSS test uses it to plant hostile names, authors, fault
messages and logs that a sandboxed ``arena run`` could not produce on demand.
"""

from __future__ import annotations

import contextlib
import random
import re
import subprocess
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from bs4 import BeautifulSoup
from click.testing import CliRunner

from arena import scheduler
from arena.botfile import bundled
from arena.cli import main
from arena.engine import Rules, play_match
from arena.record import MatchRecord
from arena.sandbox.values import forfeit_placements
from arena.secrecy import SecretFile
from arena.store import Store
from arena.tournament import current_standings

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
                            "cpu_seconds": 0.0,
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
def serving(site: Path) -> Iterator[str]:
    """``arena serve --port 0`` of ``site`` in its own process; yields the base URL it prints
    (``http://127.0.0.1:PORT/``) and stops the server afterwards."""
    proc = subprocess.Popen(
        [console_script(), "serve", "--out", str(site), "--port", "0", "--quiet"],
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
