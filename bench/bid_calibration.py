"""How right is montecarlo's judgement of a bid? Its predicted gain against the real one.

At every decision before the first lead that has a "no" to compare with (a bid where passing
is allowed, going alone or not, the dealer's pick-up or not), the Monte-Carlo bot estimates
each action's match value (the expected number of opponents it finishes above) over its
sampled worlds, and takes the best. This script plays duplicate matches in-process (the
three bots in all 6 seatings of every seed, as ``bench/strength.py`` does) and, at each such
decision of the first bot, keeps the state and the bot's estimates; after the hand it plays
**every** action out from that state to the end of the hand, once, with fresh bots of the same
three kinds, and values the scores after the hand with the bot's own match value. So each
decision gives, for every action but the "no", a *predicted* gain over the "no" (the bot's)
and a *realized* one (one play-out of each on the true cards).

It prints the decisions binned by the predicted gain: how many, the mean predicted and mean
realized gain with a 95 % interval, and how many of them the bot took. A judgement that is
right on average has the realized gain near the predicted one in every bin, and in particular
of the same sign as the bot's choice; a bin whose realized gain has the other sign is a kind
of bid the bot gets wrong, which a better model of the bid could win back. The slope of the
realized on the predicted gain, and the mean of each, sum it up, for all the decisions and for
each phase.

The first bot must be ``montecarlo`` or a bot file built on it (its ``Bot`` a subclass whose
module has ``match_value``). Example::

    python bench/bid_calibration.py montecarlo heuristic bench/montecarlo_v1.py --seeds 40
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import sys
import time
from itertools import permutations
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from strength import bot_classes, bot_name, bot_path, in_order, seated  # noqa: E402

from arena.engine import Match, Rules  # noqa: E402

NO = {"bid1": "pass", "bid2": "pass", "alone": "pass", "pickup": "decline"}
"""The phases judged, and the "no" each action is compared with."""
EDGES = (-0.2, -0.1, -0.05, -0.02, 0.0, 0.02, 0.05, 0.1, 0.2)
"""Bin edges of the predicted gain (match value: opponents finished above)."""

_CLASSES: list[Any] = []


def match_value_of(cls: type[Any]) -> Any:
    """The ``match_value`` function of the Monte-Carlo bot module ``cls`` is built on (the
    globals of its methods or of a base class's); an error if there is none."""
    for klass in cls.__mro__:  # a module loaded from a file may not be in sys.modules
        for attr in vars(klass).values():
            found = getattr(attr, "__globals__", {}).get("match_value")
            if callable(found) and callable(getattr(cls, "_search", None)):
                return found
    raise ValueError("the first bot must be montecarlo or a bot built on it")


def recording(cls: type[Any]) -> type[Any]:
    """``cls`` whose searches keep their rows (one row of action values per world) in
    ``last_rows``, with its match value as ``match_value``."""
    value = match_value_of(cls)

    class Recording(cls):  # type: ignore[valid-type, misc]
        last_rows: list[list[float]] = []
        match_value = staticmethod(value)

        def _search(self, *args: Any, **kwargs: Any) -> list[list[float]]:
            self.last_rows = rows = super()._search(*args, **kwargs)
            return rows  # type: ignore[no-any-return]

    return Recording


def _setup(paths: list[str]) -> None:
    """The three bot classes :func:`decisions_of` plays with (the first one recording), in
    this process."""
    classes = bot_classes(paths)
    _CLASSES[:] = [recording(classes[0]), *classes[1:]]


def _fresh(perm: tuple[int, ...], seed: str) -> list[Any]:
    """The bots of seating ``perm``, built with ``random`` seeded from ``seed`` and the seat."""
    bots = []
    for seat, who in enumerate(perm):
        random.seed(f"{seed}/{seat}")
        bots.append(_CLASSES[who]())
    return bots


def decisions_of(seed: int) -> list[dict[str, Any]]:
    """The first bot's yes/no decisions before the first lead (:data:`NO`) in the 6 seatings
    of ``seed``: the legal actions, its predicted and the realized match value of each, and
    its choice."""
    rules = Rules()
    value = _CLASSES[0].match_value(rules)
    out = []
    for perm in permutations(range(3)):
        bots = seated(_CLASSES, seed, perm)
        me = perm.index(0)
        match = Match(seed, rules)
        while (state := match.next_hand()) is not None:
            kept = []
            while (seat := state.turn) is not None:
                obs = state.observation(seat)
                no = NO.get(state.phase) if seat == me else None
                judged = no is not None and no in obs["legal"]
                if judged:
                    before, bots[seat].last_rows = state.copy(), []
                action = bots[seat].act(obs)
                if judged and bots[seat].last_rows:  # not a forced or trivial choice
                    kept.append((before, obs, bots[seat].last_rows, action))
                state.apply(action)
            number = len(match.hands)
            for before, obs, rows, action in kept:
                legal, realized = obs["legal"], []
                for k, option in enumerate(legal):
                    after = before.copy()
                    after.apply(option)
                    players = _fresh(perm, f"{seed}/{perm}/{number}/{k}")
                    while (turn := after.turn) is not None:
                        after.apply(players[turn].act(after.observation(turn)))
                    end = [a + b for a, b in zip(before.scores, after.points(), strict=True)]
                    realized.append(value.of(end)[me])
                predicted = [sum(col) / len(rows) for col in zip(*rows, strict=True)]
                out.append(
                    {
                        "seed": seed,
                        "phase": obs["phase"],
                        "no": NO[obs["phase"]],
                        "legal": legal,
                        "predicted": predicted,
                        "realized": realized,
                        "chose": action,
                    }
                )
            match.record(state.result())
    return out


def gains(decisions: list[dict[str, Any]]) -> list[tuple[float, float, bool]]:
    """(predicted gain, realized gain, taken) of every action over the decision's "no"."""
    out = []
    for d in decisions:
        p = d["legal"].index(d["no"])
        for k, option in enumerate(d["legal"]):
            if k != p:
                gain = d["predicted"][k] - d["predicted"][p]
                out.append((gain, d["realized"][k] - d["realized"][p], d["chose"] == option))
    return out


def binned(rows: list[tuple[float, float, bool]]) -> list[dict[str, Any]]:
    """``rows`` in bins of predicted gain (:data:`EDGES`): count, mean predicted and realized
    gain, half-width of the realized mean's 95 % interval, and how many were taken."""
    edges = (-float("inf"), *EDGES, float("inf"))
    out = []
    for lo, hi in zip(edges, edges[1:], strict=False):
        inside = [r for r in rows if lo <= r[0] < hi]
        if not inside:
            continue
        real = [r[1] for r in inside]
        spread = statistics.stdev(real) if len(real) > 1 else 0.0
        out.append(
            {
                "from": lo,
                "to": hi,
                "n": len(inside),
                "predicted": statistics.fmean(r[0] for r in inside),
                "realized": statistics.fmean(real),
                "half": 1.96 * spread / len(real) ** 0.5,
                "taken": sum(r[2] for r in inside),
            }
        )
    return out


def label(lo: float, hi: float) -> str:
    """A bin's range as text: ``below -0.20``, ``-0.20 to -0.10``, ``+0.20 and up``."""
    if lo == -float("inf"):
        return f"below {hi:+.2f}"
    return f"{lo:+.2f} and up" if hi == float("inf") else f"{lo:+.2f} to {hi:+.2f}"


def slope(rows: list[tuple[float, float, bool]]) -> float:
    """Least-squares slope of the realized gain on the predicted one."""
    mx = statistics.fmean(r[0] for r in rows)
    my = statistics.fmean(r[1] for r in rows)
    sxx = sum((r[0] - mx) ** 2 for r in rows)
    return sum((r[0] - mx) * (r[1] - my) for r in rows) / sxx if sxx else 0.0


def _progress(found: list[dict[str, Any]], done: list[dict[str, Any]], at: str) -> None:
    """Keep a finished seed's decisions, and say on stderr how far the run is (``at``: "3/40")
    and how far the realized gains are from the predicted ones so far."""
    found.extend(done)
    rows = gains(found)
    off = statistics.fmean(r[1] - r[0] for r in rows) if rows else 0.0
    print(f"set {at}: {len(found)} decisions, realized minus predicted gain {off:+.3f}",
          file=sys.stderr)  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bots", nargs=3, help="three bot files or bundled names; the first is judged")
    ap.add_argument("--seeds", type=int, default=40, help="duplicate sets (default 40)")
    ap.add_argument("--start", type=int, default=170000, help="first match seed")
    ap.add_argument("--workers", type=int, default=2, help="worker processes (default 2)")
    ap.add_argument("--json", metavar="FILE", help="also write every decision as JSON")
    args = ap.parse_args(argv)
    try:
        paths = [str(bot_path(b)) for b in args.bots]
        bot_classes(paths)  # a broken bot file: one line, here
    except Exception as e:  # a bad name or bot file is a usage error: one line
        print(f"error: {e}", file=sys.stderr)
        return 2
    try:
        recording(bot_classes(paths)[0])
    except ValueError as e:
        print(f"error: {paths[0]}: {e}", file=sys.stderr)
        return 2
    seeds = range(args.start, args.start + args.seeds)
    t0 = time.perf_counter()
    found: list[dict[str, Any]] = []
    sets = 0
    try:
        for done in in_order(decisions_of, seeds, args.workers, _setup, (paths,)):
            sets += 1
            _progress(found, done, f"{sets}/{len(seeds)}")
    except KeyboardInterrupt:  # report the sets finished so far (the first ones, in order)
        print(f"interrupted: {sets} sets finished", file=sys.stderr)
        if not found:
            return 1
    if args.json:
        Path(args.json).write_text(json.dumps(found), encoding="utf-8")
    rows = gains(found)
    name = bot_name(paths[0])
    print(f"# {len(found)} decisions of {name}, {sets} seeds x 6 seatings,")
    print(f"# {time.perf_counter() - t0:.0f} s; gain = match value of the action minus the no")
    print(f"{'predicted gain':<18} {'n':>5} {'predicted':>10} {'realized':>9} {'95% CI':>18} taken")
    for b in binned(rows):
        m, h = b["realized"], b["half"]
        print(
            f"{label(b['from'], b['to']):<18} {b['n']:>5} {b['predicted']:>+10.3f} {m:>+9.3f} "
            f"[{m - h:+.3f}, {m + h:+.3f}] {b['taken']:>5}"
        )
    for phase in ("all", *NO):
        some = gains([d for d in found if phase in ("all", d["phase"])])
        if len(some) > 1:
            mp = statistics.fmean(r[0] for r in some)
            mr = statistics.fmean(r[1] for r in some)
            taken = sum(r[2] for r in some)
            print(
                f"{phase:>6}: {len(some)} gains, {taken} taken; predicted {mp:+.3f}, realized"
                f" {mr:+.3f}; slope of realized on predicted {slope(some):.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
