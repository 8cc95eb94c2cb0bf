"""Every record a worker returns is checked against its batch before it is stored
(arena.tournaments.verify).

Genuine records come from matches played in this process by the engine (the same
:func:`arena.tournaments.runner.outcome_record` a worker uses); each forgery changes one thing a
hostile worker could want to change and must be refused with a line saying why.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import pickle
from pathlib import Path
from typing import Any

import pytest

from arena.engine import Rules, play_match
from arena.matches.record import SLOT_KEYS, MatchRecord, MatchSlot, RecordError, SeatStats
from arena.matches.scheduler import Entrant, MatchSpec
from arena.sandbox.values import BotSource, Fault, Limits, MatchOutcome, forfeit_placements
from arena.tournaments import verify
from arena.tournaments.runner import Batch, outcome_record
from arena.tournaments.schedules import FixedSchedule

FIRST = "class Bot:\n    def act(self, obs):\n        return obs['legal'][0]\n"
LAST = "class Bot:\n    def act(self, obs):\n        return obs['legal'][-1]\n"


class First:
    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][0]


class Last:
    def act(self, obs: dict[str, Any]) -> Any:
        return obs["legal"][-1]


RULES = Rules()
ENTRANTS = (Entrant("a", "a" * 64, 1), Entrant("b", "b" * 64, 2), Entrant("c", "c" * 64, 3))
SPECS = tuple(
    MatchSpec(f"m{i}", 0, i, 100 + i, "set", ENTRANTS, deal_seed=f"secret-deal-{i}")
    for i in range(2)
)
BATCH = Batch(
    RULES,
    Limits(),
    False,
    {e.key: BotSource(e.name, FIRST if e.name != "b" else LAST) for e in ENTRANTS},
    SPECS,
)


def genuine(spec: MatchSpec, faults: list[Fault] | None = None) -> dict[str, Any]:
    """The record of ``spec`` played for real (First, Last, First), optionally with faults."""
    m = play_match([First(), Last(), First()], spec.deal_seed, RULES)
    faults = faults or []
    places = forfeit_placements(m.scores, {f.seat for f in faults})
    stats = [SeatStats(3, 3, 0.1, 0.05, 0.02).to_json()] * 3
    outcome = MatchOutcome(m, faults, places, stats, ["hello\n", "", ""])
    return json.loads(verify.encode_results([outcome_record(spec, outcome, 0.5)]))[0]


def check(records: object) -> tuple[list[dict[str, Any]], list[str]]:
    """The accepted records (as JSON again) and the refusals of ``records``."""
    document = records if isinstance(records, str | bytes) else json.dumps(records)
    accepted, refused = verify.check_results(BATCH, document)
    assert all(type(r) is MatchRecord for r in accepted)
    return [r.to_json() for r in accepted], refused


def test_genuine_records_pass_whole() -> None:
    records = [genuine(SPECS[0]), genuine(SPECS[1], [Fault(1, "timeout", "too slow", 4)])]
    accepted, refused = check(records)
    assert refused == []
    assert accepted == records


def _swap_hands(r: dict[str, Any]) -> None:
    deal = r["hands"][0]["deal"]
    deal["hands"][0], deal["hands"][1] = deal["hands"][1], deal["hands"][0]


def _other_deals(r: dict[str, Any]) -> None:
    # A whole match played for real, but from a deal seed a worker could compute itself.
    other = play_match([First(), Last(), First()], SPECS[0].seed, RULES)
    r.update(hands=[h.to_dict() for h in other.hands], scores=other.scores)
    r["placements"] = forfeit_placements(other.scores, set())


def _illegal_move(r: dict[str, Any]) -> None:
    last = r["hands"][0]["log"][-1]
    last[2] = "not-a-card"


FORGERIES = {
    "a match not sent": lambda r: r.update(match_id="m9"),
    "another seed": lambda r: r.update(seed=r["seed"] + 1),
    "another bot version": lambda r: r.update(bots=[1, 2, 4]),
    "an extra key": lambda r: r.update(owned=True),
    "a missing key": lambda r: r.pop("stats"),
    "the winner's place": lambda r: r.update(placements=[p % 3 + 1 for p in r["placements"]]),
    "a score": lambda r: r["scores"].__setitem__(0, r["scores"][0] + 5),
    "swapped cards": _swap_hands,
    "the deals of the public seed": _other_deals,
    "an illegal move": _illegal_move,
    "a truncated log": lambda r: r["hands"][-1]["log"].pop(),
    "a fault of a seat 7": lambda r: r["faults"].append(
        {"seat": 7, "kind": "crash", "message": "x", "decision": None}
    ),
    "an unknown fault kind": lambda r: r["faults"].append(
        {"seat": 0, "kind": "magic", "message": "x", "decision": None}
    ),
    "control characters in a log": lambda r: r["logs"].__setitem__(0, "\x1b[2Jhi"),
    "a log over the cap": lambda r: r["logs"].__setitem__(0, "x" * (Limits().log_bytes + 1)),
    "a negative duration": lambda r: r.update(duration_seconds=-1),
    "an unknown stat": lambda r: r["stats"][0].update(evil=1),
    "a missing stat": lambda r: r["stats"][1].pop("cpu_seconds"),
    "the old name of a stat": lambda r: r["stats"][0].update(
        max_seconds=r["stats"][0].pop("max_think_seconds")
    ),
    "a negative stat": lambda r: r["stats"][2].update(asked=-1),
    "a boolean round": lambda r: r.update(round=False),
    "a score as text": lambda r: r["scores"].__setitem__(0, str(r["scores"][0])),
    "four bots": lambda r: r["bots"].append(1),
    "a fault with an extra key": lambda r: r["faults"].append(
        {"seat": 0, "kind": "crash", "message": "x", "decision": None, "x": 1}
    ),
    "two faults of one seat": lambda r: r["faults"].extend(
        [{"seat": 0, "kind": "crash", "message": "x", "decision": None}] * 2
    ),
    "a record that is a list": lambda r: r.clear(),
    "a hand without its log": lambda r: r["hands"][0].pop("log"),
    "a duration too large for a float": lambda r: r.update(duration_seconds=10**400),
    "a count too large for SQLite": lambda r: r["stats"][0].update(decisions=2**64),
}


@pytest.mark.parametrize("name", list(FORGERIES))
def test_a_forged_record_is_refused_and_the_others_kept(name: str) -> None:
    forged, good = genuine(SPECS[0]), genuine(SPECS[1])
    FORGERIES[name](forged)
    accepted, refused = check([forged, good])
    assert accepted == [good]
    assert len(refused) == 1 and refused[0].startswith(("match m", "a record")), refused


def test_a_record_reads_back_from_its_json_exactly() -> None:
    data = genuine(SPECS[1], [Fault(2, "crash", "boom", None)])
    record = MatchRecord.from_json(data)
    assert record.to_json() == data
    assert MatchRecord.from_json(json.loads(json.dumps(record.to_json()))) == record
    assert record.stats[0].max_think_seconds == 0.05 and record.faults[0].seat == 2
    for bad in ({**data, "extra": 1}, {k: v for k, v in data.items() if k != "logs"}, [data]):
        with pytest.raises(RecordError):
            MatchRecord.from_json(bad)


def test_a_record_holds_the_slot_of_its_spec_and_reads_it_strictly() -> None:
    # The five scheduled fields are one MatchSlot, the spec's and the record's.
    record = MatchRecord.from_json(genuine(SPECS[0]))
    assert record.slot == SPECS[0].slot == MatchSlot("m0", 0, 0, 100, "set")
    assert record.slot != SPECS[1].slot and tuple(record.slot_json()) == SLOT_KEYS
    assert SPECS[0].to_dict() == {**SPECS[0].slot_json(), "seats": ["a", "b", "c"]}
    for key, bad in (("round", "0"), ("seed", 1.5), ("set_key", 7), ("match_id", None)):
        with pytest.raises(RecordError, match=f"its {key} is not"):
            MatchRecord.from_json({**genuine(SPECS[0]), key: bad})
    # A record of another slot than the one sent is refused, naming the field.
    _, refused = check([{**genuine(SPECS[0]), "seating": 1}])
    assert len(refused) == 1 and "its seating is not the one sent" in refused[0]


def test_a_record_reported_twice_is_stored_once() -> None:
    record = genuine(SPECS[0])
    accepted, refused = check([record, copy.deepcopy(record)])
    assert accepted == [record]
    assert refused == ["match m0: it is reported twice"]


@pytest.mark.parametrize(
    "document",
    [
        pickle.dumps([1, 2]),
        "{not json",
        '{"match_id": "m0"}',
        "[NaN]",
        "[1, 2]",
        12,
    ],
)
def test_a_document_that_is_not_a_list_of_records_stores_nothing(document: object) -> None:
    accepted, refused = verify.check_results(BATCH, document)
    assert accepted == []
    assert refused and all(isinstance(line, str) and "\n" not in line for line in refused)


# --- what the arena's Dask client unpickles (arena.cluster.security.plain_loads) -------------


class Payload:
    def __init__(self, marker: str) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[Any, ...]:
        import os

        return (os.system, (f"touch {self.marker}",))


def test_plain_loads_refuses_code_and_keeps_values(tmp_path: Path) -> None:
    from arena.cluster.security import PickleRefused, plain_loads

    marker = tmp_path / "ran"
    for evil in (Payload(str(marker)), [1, {"x": Payload(str(marker))}], Limits()):
        with pytest.raises(PickleRefused):
            plain_loads(pickle.dumps(evil))
    assert not marker.exists()
    value = {"a": [1, 2.5, "s", None, True], "b": (b"x", {3}, frozenset({4}))}
    assert plain_loads(pickle.dumps(value)) == value


def test_plain_loads_rebuilds_a_workers_exception_without_its_traceback() -> None:
    import tblib.pickling_support

    from arena.cluster.security import plain_loads

    try:
        import no_such_module_here  # type: ignore[import-not-found]  # noqa: F401
    except ImportError as e:
        tblib.pickling_support.install(e)
        got = plain_loads(pickle.dumps(e))
    assert type(got) is ModuleNotFoundError
    assert str(got) == "No module named 'no_such_module_here'"
    assert got.__traceback__ is None


def test_a_worker_is_sent_no_secret_and_no_database(tmp_path: Path) -> None:
    # Exactly what a cluster worker receives: the pickled batches of a real plan.
    from arena.matches.secrecy import SecretFile
    from arena.store import Store
    from arena.tournaments import runner
    from arena.tournaments.tournament import plan_round_robin

    secret = SecretFile(3, bytes(range(7, 39)))
    with Store(tmp_path / "t.db") as store:
        versions = [store.add_bot_version(n, FIRST + f"# {n}\n", f"{n}.py")[0] for n in "abc"]
        the_plan = plan_round_robin(
            store, versions, rounds=2, seed=3, rules=RULES, limits=Limits(), secret_file=secret
        )
        sources = {f"{v.name}:{v.sha256}": BotSource(v.name, v.source) for v in versions}
        fixed = the_plan.schedule
        assert isinstance(fixed, FixedSchedule)
        sent = list(
            runner.batches(
                fixed.todo,
                workers=2,
                rules=RULES,
                limits=Limits(),
                unsafe_no_sandbox=False,
                sources=sources,
            )
        )
    assert sent and {f.name for f in dataclasses.fields(runner.Batch)} == {
        "rules", "limits", "unsafe_no_sandbox", "sources", "matches"
    }  # fmt: skip
    for batch in sent:
        data = pickle.dumps(batch)
        assert secret.secret not in data and secret.secret.hex().encode() not in data
        assert b"t.db" not in data and b"sqlite" not in data.lower()
        assert set(batch.sources) == {e.key for spec in batch.matches for e in spec.seats}
