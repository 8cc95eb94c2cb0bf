"""Deal secrecy: secrets per (database, seed), commit then reveal, verification.

The round trip is real: bot files, ``arena run`` (console script, sandbox, worker processes),
a SQLite file, ``arena tournaments``/``verify``/``render`` in subprocesses, and the standard-
library recipe of docs/tournaments.md extracted from the doc and run as written.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import os
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from cli_support import arena_here
from inprocess import FIRST, LAST, LIMITS, MIDDLE, RANDOM, play, register

from arena.engine import Rules
from arena.errors import ArenaError
from arena.matches.secrecy import SecretFile, commitment, deal_seed, verify
from arena.sandbox import Limits
from arena.store import Store
from arena.tournaments.schedules import FixedSchedule
from arena.tournaments.tournament import plan_round_robin, register_files

ARENA = str(Path(sys.executable).with_name("arena"))
DOC = Path(__file__).parents[1] / "docs" / "tournaments.md"
BOTS = {"last.py": LAST, "first.py": FIRST, "rnd.py": RANDOM}


def arena(*args: str | Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """Run the installed console script; with ``ok``, it must succeed."""
    env = {**os.environ, "COLUMNS": "200"}  # wide enough for rich's tables not to cut cells
    done = subprocess.run(
        [ARENA, *map(str, args)], capture_output=True, text=True, timeout=600, env=env
    )
    if ok:
        assert done.returncode == 0, done.stderr
    return done


def arena_in(*args: str | Path, ok: bool = True) -> subprocess.CompletedProcess[str]:
    """:func:`arena` run in this process (``arena_here``: the same command, no interpreter's
    start), for the many one-line refusals and help texts."""
    done = arena_here(*args, cwd=Path.cwd())
    if ok:
        assert done.returncode == 0, done.stderr
    return done


def one_error_line(done: subprocess.CompletedProcess[str]) -> str:
    """The command failed with exit 1 and said why in one line, without a traceback."""
    assert done.returncode == 1, (done.stdout, done.stderr)
    lines = [ln for ln in done.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("Error: "), done.stderr
    return lines[0]


def site_text(out: Path) -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in out.rglob("*.html"))


@dataclass
class Played:
    """A real tournament played by ``arena run``, started unfinished first."""

    db: Path
    tid: str
    commitment: str
    secret: str
    hands: int
    files: list[Path]
    before: dict[str, object]  # `arena tournaments --json` while it was not finished
    early_verify: subprocess.CompletedProcess[str]
    early_site: str


@pytest.fixture(scope="module")
def played(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Played]:
    tmp = tmp_path_factory.mktemp("secrecy")
    files = []
    for name, source in BOTS.items():
        (tmp / name).write_text(source, encoding="utf-8")
        files.append(tmp / name)
    db = tmp / "arena.db"
    # Created (as `arena run` would) but not played: running, so nothing is revealed.
    from arena.sandbox import Limits

    with Store(db) as store:
        versions = register_files(store, files)
        early = plan_round_robin(store, versions, rounds=2, seed=1, rules=Rules(), limits=Limits())
    before = json.loads(arena("tournaments", "--json", "--db", db).stdout)[0]
    early_verify = arena("verify", "--db", db, ok=False)
    arena("render", "--db", db, "--out", tmp / "early-site")
    early_site = site_text(tmp / "early-site")

    done = arena("run", *files, "--db", db, "--rounds", "2", "--workers", "2", "--no-site")
    assert f"Deal commitment {early.commitment}" in done.stdout
    after = json.loads(arena("tournaments", "--json", "--db", db).stdout)[0]
    with Store(db, create=False) as store:
        hands = store.hand_count(early.tid)
    assert early.commitment is not None
    yield Played(
        db,
        early.tid,
        early.commitment,
        after["secret"],
        hands,
        files,
        before,
        early_verify,
        early_site,
    )


def test_an_unfinished_tournament_shows_its_commitment_and_never_its_secret(
    played: Played,
) -> None:
    # Planned but not being played (no run holds its lock): shown as interrupted.
    assert played.before["id"] == played.tid and played.before["status"] == "interrupted"
    assert played.before["commitment"] == played.commitment
    assert played.before["secret"] is None
    assert "has not finished" in one_error_line(played.early_verify)
    assert played.commitment in played.early_site
    assert played.secret not in played.early_site
    assert "revealed when the tournament finishes" in played.early_site


def test_a_finished_tournament_reveals_its_secret_and_every_deal_verifies(
    played: Played, tmp_path: Path
) -> None:
    assert hashlib.sha256(bytes.fromhex(played.secret)).hexdigest() == played.commitment
    done = arena("verify", played.tid[:6], "--db", played.db)
    assert done.stdout.strip() == (
        f"{played.hands} deals verified in 12 matches of tournament {played.tid}: the "
        f"revealed secret matches commitment {played.commitment}"
    )
    arena("render", "--db", played.db, "--out", tmp_path / "site")
    page = (tmp_path / "site" / "tournaments" / f"{played.tid}.html").read_text("utf-8")
    assert played.secret in page and played.commitment in page
    # The deals are neither the public seeds' nor anyone else's: each is the HMAC's.
    with Store(played.db, create=False) as store:
        m = store.match_rows(tid=played.tid)[0]
        deal = store.match(m.id)[1][0]["deal"]
    from arena.engine import deal_for

    keyed = deal_for(deal_seed(bytes.fromhex(played.secret), m.seed), 0).to_dict()
    assert deal == keyed != deal_for(m.seed, 0).to_dict()


def tampered(played: Played, tmp_path: Path, sql: str) -> Path:
    """A copy of the played database with ``sql`` applied to it."""
    copy = tmp_path / f"copy{len(list(tmp_path.glob('copy*.db')))}.db"
    src = sqlite3.connect(played.db)
    dst = sqlite3.connect(copy)
    src.backup(dst)
    src.close()
    dst.execute(sql)
    dst.commit()
    dst.close()
    return copy


SWAP = """UPDATE hands SET record = json_set(record,
    '$.deal.hands[0][0]', json_extract(record, '$.deal.dummy[0]'),
    '$.deal.dummy[0]', json_extract(record, '$.deal.hands[0][0]'))
  WHERE rowid = (SELECT rowid FROM hands ORDER BY match_id, hand_number LIMIT 1 OFFSET 7)"""


@pytest.mark.parametrize(
    ("sql", "says"),
    [
        (SWAP, "the stored cards are not the deal of its seed"),
        ("UPDATE hands SET dealer = (dealer + 1) % 3 WHERE hand_number = 1", "dealer"),
        ("UPDATE matches SET seed = seed + 1 WHERE round = 1 AND seating = 2", "as scheduled"),
        ("DELETE FROM hands WHERE hand_number = 0 AND match_id = "
         "(SELECT MIN(id) FROM matches)", "is missing hand 0"),
        ("UPDATE deal_secrets SET secret = '" + "00" * 32 + "'", "does not match its commitment"),
    ],
    ids=["cards", "dealer", "public-seed", "missing-hand", "secret"],
)  # fmt: skip
def test_a_tampered_database_is_reported_in_one_line(
    played: Played, tmp_path: Path, sql: str, says: str
) -> None:
    copy = tampered(played, tmp_path, sql)
    line = one_error_line(arena_in("verify", played.tid, "--db", copy, ok=False))
    assert says in line
    if says != "does not match its commitment":
        assert re.search(r"match [0-9a-f]{12} ", line) and "of 12 matches" in line


@pytest.mark.parametrize(
    ("sql", "says"),
    [
        ("UPDATE seat_totals SET hands = hands + 1 WHERE rowid = (SELECT MIN(rowid) "
         "FROM seat_totals)", " hands: stored "),
        ("UPDATE seat_totals SET max_clock_seconds = max_clock_seconds * 2", "max_clock_seconds"),
        ("DELETE FROM pair_totals WHERE rowid = (SELECT MIN(rowid) FROM pair_totals)", "missing"),
    ],
    ids=["count", "maximum", "deleted"],
)  # fmt: skip
def test_a_running_total_that_differs_is_reported_like_a_deal(
    played: Played, tmp_path: Path, sql: str, says: str
) -> None:
    # The per-bot totals the site shows are kept as running sums: one that is not what the
    # stored matches add up to fails verification, in one line, exit 1.
    copy = tampered(played, tmp_path, sql)
    line = one_error_line(arena_in("verify", played.tid, "--db", copy, ok=False))
    assert line.startswith("Error: running total "), line
    assert says in line and f"of tournament {played.tid} differ from its stored matches" in line


def extract(kind: str) -> str:
    """The code block of ``kind`` in the doc's section on verifying by hand."""
    section = DOC.read_text(encoding="utf-8").split("### Verifying a published database")[1]
    found = re.search(rf"```{kind}\n(.*?)```", section, re.S)
    assert found is not None, f"no {kind} block in the section"
    return found.group(1)


def test_the_documented_recipe_verifies_a_published_copy(played: Played, tmp_path: Path) -> None:
    # The organiser's database also holds an unfinished tournament of another seed, whose
    # secret must not be published.
    own = tampered(played, tmp_path, "SELECT 1")
    with Store(own) as store:
        hidden_tid = play(store, {"a1": FIRST, "b1": LAST, "c1": MIDDLE}, seed=99, finish=False)
        hidden = store.tournament_secret(hidden_tid)
    assert hidden is not None
    public = tmp_path / "public.db"
    src = sqlite3.connect(own)
    dst = sqlite3.connect(public)
    src.backup(dst)
    src.close()
    dst.executescript(extract("sql"))
    dst.close()
    assert not Path(f"{public}-wal").exists()
    raw = public.read_bytes()
    assert hidden.secret.hex().encode() not in raw
    assert b"obs['legal']" not in raw  # no bot source either

    recipe = tmp_path / "verify_deals.py"
    recipe.write_text(extract("python"), encoding="utf-8")
    # -I -S: no site-packages, so not the arena: the standard library only.
    cmd = [sys.executable, "-I", "-S", str(recipe), str(public), played.tid]
    done = subprocess.run([*cmd, played.secret, played.commitment], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == f"{played.hands} deals verified"

    wrong = subprocess.run([*cmd, "00" * 32, played.commitment], capture_output=True, text=True)
    assert wrong.returncode == 1 and "does not match" in wrong.stderr
    copy = tampered(played, tmp_path, SWAP)
    bad = subprocess.run(
        [*cmd[:-2], str(copy), played.tid, played.secret, played.commitment],
        capture_output=True,
        text=True,
    )
    assert bad.returncode == 1 and "AssertionError" in bad.stderr and " hand " in bad.stderr


def test_an_exported_secret_reproduces_the_tournament_elsewhere(
    played: Played, tmp_path: Path
) -> None:
    exported = arena("tournaments", "--export", played.tid, "--db", played.db)
    assert exported.stderr == ""  # revealed already: no warning
    secret_file = tmp_path / "secret.json"
    secret_file.write_text(exported.stdout, encoding="utf-8")
    assert SecretFile.read(secret_file) == SecretFile(1, bytes.fromhex(played.secret))
    other = tmp_path / "other.db"
    args = ("--rounds", "2", "--workers", "1", "--no-site", "--db", other)
    arena("run", *played.files, *args, "--secret-file", secret_file)

    def deals(db: Path) -> list[tuple[str, int, object]]:
        with Store(db, create=False) as store:
            return [
                (m.id, h["hand_number"], h["deal"])
                for m in sorted(store.match_rows(), key=lambda m: m.id)
                for h in store.match(m.id)[1]
            ]

    assert deals(other) == deals(played.db)
    again = json.loads(arena("tournaments", "--json", "--db", other).stdout)[0]
    assert again["commitment"] == played.commitment


def test_bad_secret_files_are_refused_in_one_line_and_nothing_is_stored(tmp_path: Path) -> None:
    for name, source in BOTS.items():
        (tmp_path / name).write_text(source, encoding="utf-8")
    files = [tmp_path / n for n in BOTS]
    good = json.loads(SecretFile(1, bytes(32)).to_json())
    cases = {
        "not-json": "{",
        "no-format": json.dumps({"seed": 1, "secret": "00" * 32}),
        "short": json.dumps({**good, "secret": "00" * 31, "commitment": None}),
        "commitment": json.dumps({**good, "commitment": "ff" * 32}),
        "other-seed": json.dumps({**good, "seed": 2}),
    }
    for case, text in cases.items():
        path = tmp_path / f"{case}.json"
        path.write_text(text, encoding="utf-8")
        db = tmp_path / f"{case}.db"
        line = one_error_line(arena_in("run", *files, "--db", db, "--secret-file", path, ok=False))
        assert ("seed 2, not of seed 1" in line) == (case == "other-seed"), line
        if db.exists():
            with Store(db, create=False) as store:
                assert store.tournaments() == []


# --- the secret's life in one database (no play needed) ---------------------------------


def deal_seeds(store: Store, tid: str, members: set[str]) -> dict[int, str | int]:
    """Round -> deal seed of the set of ``members`` (bot names) in tournament ``tid``."""
    versions = store.tournament_entrants(tid)
    config = json.loads(store.tournament(tid).config)
    again = plan_round_robin(
        store,
        versions,
        rounds=config["rounds"],
        seed=config["seed"],
        rules=Rules(),
        limits=Limits.from_dict(config["limits"]),
    )
    assert isinstance(again.schedule, FixedSchedule)
    matches = again.schedule.matches
    return {s.round: s.deal_seed for s in matches if {e.name for e in s.seats} == members}


def test_tournaments_of_a_seed_share_its_secret_until_one_finishes(tmp_path: Path) -> None:
    store = Store(tmp_path / "a.db")
    bots = {"a": FIRST, "b": LAST, "c": MIDDLE, "d": RANDOM}
    v = {x.name: x for x in register(store, bots)}
    limits = LIMITS

    def new(names: str, seed: int = 7, secret: SecretFile | None = None) -> tuple[str, str]:
        p = plan_round_robin(
            store,
            [v[n] for n in names],
            rounds=2,
            seed=seed,
            rules=Rules(),
            limits=limits,
            secret_file=secret,
        )
        assert p.commitment is not None
        return p.tid, p.commitment

    abc, c1 = new("abc")
    abcd, c2 = new("abcd")
    _, c3 = new("abc", seed=8)
    assert c1 == c2 != c3
    # Adding a bot leaves the existing set's deals unchanged; the deals are keyed, not public.
    assert deal_seeds(store, abc, {"a", "b", "c"}) == deal_seeds(store, abcd, {"a", "b", "c"})
    stored = store.tournament_secret(abc)
    assert stored is not None and stored.commitment == c1
    planned = plan_round_robin(
        store, [v[n] for n in "abc"], rounds=2, seed=7, rules=Rules(), limits=limits
    )
    assert isinstance(planned.schedule, FixedSchedule)
    spec = planned.schedule.matches[0]
    assert (
        spec.deal_seed
        == hmac.new(stored.secret, f"arena/deal/{spec.seed}".encode(), hashlib.sha256).hexdigest()
    )

    # Finishing reveals the secret: the next new tournament of the seed draws a fresh one,
    # while the unfinished sibling keeps its own.
    store.set_status(abc, "finished")
    abd, c4 = new("abd")
    assert c4 != c1
    assert new("abcd") == (abcd, c1)
    assert deal_seeds(store, abd, {"a", "b", "d"}) != deal_seeds(store, abcd, {"a", "b", "d"})

    # An imported secret is used as given, and never shared with a tournament without the file.
    imported = SecretFile(7, bytes(range(32)))
    _, c5 = new("bcd", secret=imported)
    assert c5 == commitment(imported.secret)
    _, c6 = new("acd")
    assert c6 == c4
    with pytest.raises(ArenaError, match="another deal secret"):
        new("abcd", secret=imported)
    with pytest.raises(ArenaError, match="seed 8, not of seed 7"):
        new("abc", secret=SecretFile(8, bytes(32)))
    store.close()


def test_verify_refuses_an_unfinished_tournament_and_checks_a_finished_one(
    tmp_path: Path,
) -> None:
    with Store(tmp_path / "a.db") as store:
        tid = play(store, {"a": FIRST, "b": LAST, "c": RANDOM}, finish=False)
        with pytest.raises(ArenaError, match="has not finished"):
            verify(store, tid)
        store.set_status(tid, "finished")
        report = verify(store, tid)
        n = store.hand_count(tid)
        assert report.ok and report.deals == n and report.matches == 12


def test_verify_and_the_new_options_have_help_with_examples() -> None:
    verify_help = arena_in("verify", "--help").stdout
    assert "Example:" in verify_help and "--db" in verify_help
    assert "--secret-file" in arena_in("run", "--help").stdout
    assert "--export" in arena_in("tournaments", "--help").stdout
    assert "--collusion" in arena_in("standings", "--help").stdout
