"""The records a worker returns, checked against the batch that was sent before anything is stored.

A worker (a local process or a machine of a Dask cluster) returns a batch's results as one JSON
document (:func:`encode_results`), never as pickled objects. The parent decodes it and checks
every record against the :class:`~arena.tournaments.runner.Batch` it sent (:func:`check_results`):
the match was in the batch and is reported once, its public fields and bots are the scheduled ones,
it has exactly the known keys with values of the right types, the bot-controlled text is already
capped and stripped, and the match itself **replays**: the engine re-plays every logged decision
from the deals of the match's deal seed (which only the parent's secret gives), and the hands,
scores and end must come out exactly as reported; places follow from the scores and faults.

So a worker that lies cannot store deals other than the tournament's, an illegal move, a score
that does not follow from the play, a match that was not sent, or a different bot; what it can
still do is choose legal moves on behalf of the bots it hosts (it runs them), which is why
workers must be machines you trust that far (docs/cluster.md).
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Final

from arena.engine import DEFAULT_MAX_HANDS, play_match
from arena.matches.record import (
    FAULT_KEYS,
    RECORD_KEYS,
    SLOT_KEYS,
    STAT_KEYS,
    MatchRecord,
    RecordError,
)
from arena.sandbox.values import forfeit_placements
from arena.untrusted import MAX_MESSAGE, clean, clean_line

if TYPE_CHECKING:
    from arena.matches.scheduler import MatchSpec
    from arena.rules import Observation
    from arena.tournaments.runner import Batch

MAX_DOCUMENT: Final = 64 << 20
"""Characters of one batch's results document at most (20 matches with full logs fit easily)."""


class Refused(ValueError):
    """A record (or a whole results document) that does not match what was sent."""


def encode_results(records: Sequence[MatchRecord]) -> str:
    """A batch's records as the JSON document a worker returns (plain text, nothing to run)."""
    return json.dumps([r.to_json() for r in records], separators=(",", ":"), allow_nan=False)


def check_results(batch: Batch, document: object) -> tuple[list[MatchRecord], list[str]]:
    """The records of ``document`` that match ``batch``, and one line per record refused.

    A document that is not a JSON list of objects is refused whole (one line). Every record is
    read strictly (:meth:`~arena.matches.record.MatchRecord.from_json`) and checked by
    :func:`check_record`; a record reporting a match already reported in the same
    document is refused too.
    """
    if isinstance(document, BaseException):  # the transport could not (or would not) read it
        return [], [f"the results could not be read: {clean_line(document, 300)}"]
    if not isinstance(document, str | bytes):
        return [], [f"the results are a {type(document).__name__}, not a JSON document"]
    if len(document) > MAX_DOCUMENT:
        return [], [f"the results document has {len(document)} characters (limit {MAX_DOCUMENT})"]
    try:
        records = json.loads(document, parse_constant=_no_constant)
    except (ValueError, RecursionError) as e:
        return [], [f"the results are not valid JSON: {clean_line(e, 200)}"]
    if not isinstance(records, list):
        return [], ["the results are not a JSON list"]
    specs = {spec.match_id: spec for spec in batch.matches}
    accepted: list[MatchRecord] = []
    refused: list[str] = []
    seen: set[str] = set()
    for record in records:
        mid = record.get("match_id") if isinstance(record, dict) else None
        label = f"match {clean_line(mid, 80)}" if isinstance(mid, str) else "a record"
        try:
            if not isinstance(mid, str) or mid not in specs:
                raise Refused("it is not a match of the batch sent")
            if mid in seen:
                raise Refused("it is reported twice")
            seen.add(mid)
            typed = MatchRecord.from_json(record)
            check_record(typed, specs[mid], batch)
        except (Refused, RecordError) as e:
            refused.append(f"{label}: {e}")
            continue
        accepted.append(typed)
    return accepted, refused


def _no_constant(name: str) -> None:
    raise ValueError(f"{name} is not a number")


def check_record(record: MatchRecord, spec: MatchSpec, batch: Batch) -> None:
    """Raise :class:`Refused` unless ``record`` is exactly the match ``spec`` as played (its
    shape and JSON types were checked when it was read: :meth:`MatchRecord.from_json`)."""
    if record.slot != spec.slot:
        key = next(k for k in SLOT_KEYS if getattr(record, k) != getattr(spec, k))
        raise Refused(f"its {key} is not the one sent")
    if list(record.bots) != [e.version_id for e in spec.seats]:
        raise Refused("its bots are not the scheduled versions")
    faulty = _check_faults(record)
    _check_replay(record, spec, batch)
    if list(record.placements) != forfeit_placements(list(record.scores), faulty):
        raise Refused("its places do not follow from the scores and faults")
    _check_logs(record.logs, batch.limits.log_bytes)


def _check_faults(record: MatchRecord) -> set[int]:
    seats: set[int] = set()
    for f in record.faults:
        if f.seat in seats:
            raise Refused("a fault names a bad or repeated seat")
        if clean(f.message, MAX_MESSAGE) != f.message:
            raise Refused("a fault message is not capped and stripped")
        seats.add(f.seat)
    return seats


class _Replay:
    """The player of every seat in a replay: the logged decisions, in order, seat checked."""

    def __init__(self, decisions: Iterator[Any], seat: int) -> None:
        self.decisions = decisions
        self.seat = seat

    def act(self, obs: Observation) -> Any:
        step = next(self.decisions, None)
        if not isinstance(step, list) or len(step) != 3 or step[0] != self.seat:
            raise Refused("its decision log does not replay (wrong seat or too short)")
        return step[2]


def _check_replay(record: MatchRecord, spec: MatchSpec, batch: Batch) -> None:
    hands = list(record.hands)
    if not 0 < len(hands) <= DEFAULT_MAX_HANDS:
        raise Refused("its hands are not a list of played hands")
    decisions = iter([step for h in hands for step in h["log"]])
    players = [_Replay(decisions, seat) for seat in range(3)]
    try:
        replayed = play_match(players, spec.deal_seed, batch.rules)
    except Refused:
        raise
    except (ValueError, TypeError, KeyError, IndexError) as e:  # an illegal or malformed move
        raise Refused(f"its decisions are not legal: {clean_line(e, 200)}") from e
    if next(decisions, None) is not None:
        raise Refused("its decision log goes on after the match ended")
    # Compared as JSON (tuples become lists), the form the worker sent them in.
    if json.loads(json.dumps([h.to_dict() for h in replayed.hands])) != hands:
        raise Refused("its hands differ from the replay of its decisions on the match's deals")
    if list(record.scores) != replayed.scores or record.truncated is not replayed.truncated:
        raise Refused("its scores or end differ from the replay")


def _check_logs(logs: Sequence[str], log_bytes: int) -> None:
    limit = max(log_bytes, 1)
    for text in logs:
        if clean(text, limit) != text:
            raise Refused("a bot's log is not capped and stripped")


__all__ = [
    "FAULT_KEYS",
    "MAX_DOCUMENT",
    "RECORD_KEYS",
    "STAT_KEYS",
    "Refused",
    "check_record",
    "check_results",
    "encode_results",
]
