"""A field of bot files for a real ladder: variants of the bundled bots with other parameters.

Usage: ``python bench/variants.py DIR [--count 30] [--seed 1]``: writes ``count`` bot files
into ``DIR`` (made if missing; existing variant files are overwritten, nothing else is
touched) and prints one line per file: its name, family and parameters.

Each file is a copy of a bundled bot (``bots/``) with its parameters changed and its own
``Bot.name``, so it is a valid self-contained bot file like any submission. The families:

- **montecarlo** with a small search (worlds per decision, the least worlds, the work budget
  of a decision) so that a duplicate set takes seconds, not minutes;
- **heuristic** with another bidding bar, fewer dummies sampled per bid, and a bolder, the
  usual or no lone play;
- **weak** ones on purpose: the random bot, a heuristic that never orders trump (it bids only
  when stuck as the dealer) and one that orders on anything.

The same seed and count give the same files, byte for byte. Names are unique and no two read
alike (:func:`arena.untrusted.name_skeleton`), nor like a bundled bot's.
"""

from __future__ import annotations

import argparse
import random
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from arena.untrusted import name_problem, name_skeleton  # noqa: E402

BOTS = REPO / "bots"
AUTHOR = "bench/variants.py"
BUNDLED = ("random", "random_bot", "heuristic", "montecarlo")

# Shares of the field: a third montecarlo, three weak bots, the rest heuristic.
MONTECARLO_SHARE = 1 / 3
WEAK = ("random", "timid", "reckless")

# The montecarlo variants' search: small, so that a set of six matches takes seconds (the
# bundled bot's 100,000 units of work per decision makes a set take minutes of CPU).
MC_PLAY_WORLDS = (8, 12, 16, 24)
MC_BID_WORLDS = (6, 8, 12)
MC_MIN_WORLDS = (4, 8)
MC_WORK = (1_500, 3_000, 6_000, 12_000)

# The heuristic variants: the bidding bar (expected tricks of the best keep), dummies drawn per
# bid, and lone play (the maker's and the defender's bars; "never": out of reach).
HEUR_BARS = (2.6, 2.75, 2.9, 3.05, 3.2, 3.35, 3.5)
HEUR_SAMPLES = (2, 4, 8, 12, 24)
ALONE = {"usual": (4.7, 4.6, 4.4), "bold": (4.2, 4.0, 3.8), "never": (9.0, 9.0, 9.0)}


@dataclass(frozen=True)
class Variant:
    """One generated bot: its name, family, parameters and whole source."""

    name: str
    family: str
    params: dict[str, object]
    source: str

    @property
    def filename(self) -> str:
        """The file it is written to (the name, dots made underscores, ``.py``)."""
        return self.name.replace(".", "_") + ".py"


def _substitute(source: str, swaps: list[tuple[str, str]]) -> str:
    """``source`` with each ``old`` replaced by ``new``; each ``old`` must occur exactly once
    (a bundled bot that changed shape fails here, loudly, not with a silent no-op)."""
    for old, new in swaps:
        count = source.count(old)
        if count != 1:
            raise RuntimeError(f"bench/variants.py: {old!r} occurs {count} times in a bundled bot")
        source = source.replace(old, new)
    return source


def _named(bundled_name: str, name: str) -> list[tuple[str, str]]:
    return [
        (f'    name = "{bundled_name}"\n', f'    name = "{name}"\n'),
        ('    author = "Euchre Arena"\n', f'    author = "{AUTHOR}"\n'),
    ]


def montecarlo(name: str, play: int, bid: int, least: int, work: int) -> Variant:
    """The bundled montecarlo bot with a smaller search."""
    base = (BOTS / "montecarlo.py").read_text()
    swaps = _named("montecarlo", name) + [
        ("PLAY_WORLDS = 96\n", f"PLAY_WORLDS = {play}\n"),
        ("BID_WORLDS = 64\n", f"BID_WORLDS = {bid}\n"),
        ("MIN_WORLDS = 16\n", f"MIN_WORLDS = {least}\n"),
        ("WORK_BUDGET = 100_000\n", f"WORK_BUDGET = {work:_}\n"),
    ]
    params = {"play_worlds": play, "bid_worlds": bid, "min_worlds": least, "work": work}
    return Variant(name, "montecarlo", params, _substitute(base, swaps))


def heuristic(name: str, bar: float, samples: int, alone: str) -> Variant:
    """The bundled heuristic bot with another bidding bar, dummies per bid and lone play."""
    base = (BOTS / "heuristic.py").read_text()
    maker, defender, defender_other = ALONE[alone]
    swaps = _named("heuristic", name) + [
        ("BID_THRESHOLD = 3.05\n", f"BID_THRESHOLD = {bar}\n"),
        ("DUMMY_SAMPLES = 24\n", f"DUMMY_SAMPLES = {samples}\n"),
        ("and own >= 4.7:", f"and own >= {maker}:"),
        (
            'bar = 4.6 if rules["lone_defender_scoring"] == "both" else 4.4',
            f'bar = {defender} if rules["lone_defender_scoring"] == "both" else {defender_other}',
        ),
    ]
    params = {"bid_bar": bar, "dummies": samples, "alone": alone}
    return Variant(name, "heuristic", params, _substitute(base, swaps))


def weak(name: str, kind: str) -> Variant:
    """A deliberately weak bot: ``random``, ``timid`` (never orders) or ``reckless``."""
    if kind == "random":
        base = (BOTS / "random_bot.py").read_text()
        return Variant(name, "weak", {"kind": kind}, _substitute(base, _named("random", name)))
    bar = 9.0 if kind == "timid" else 1.0
    made = heuristic(name, bar, 4, "never")
    return Variant(name, "weak", {"kind": kind, "bid_bar": bar}, made.source)


def _draw(family: str, i: int, rng: random.Random) -> Variant:
    """One variant of ``family`` as the ``i``-th bot, its parameters drawn from ``rng``."""
    if family == "montecarlo":
        play, bid = rng.choice(MC_PLAY_WORLDS), rng.choice(MC_BID_WORLDS)
        least, work = rng.choice(MC_MIN_WORLDS), rng.choice(MC_WORK)
        return montecarlo(f"mc{i:02d}-w{play}-b{bid}-n{work}", play, bid, least, work)
    if family == "heuristic":
        bar, samples = rng.choice(HEUR_BARS), rng.choice(HEUR_SAMPLES)
        alone = rng.choice(tuple(ALONE))
        return heuristic(f"heur{i:02d}-t{round(bar * 100)}-d{samples}-{alone}", bar, samples, alone)
    return weak(f"weak{i:02d}-{family}", family)


def variants(count: int = 30, seed: int = 1) -> list[Variant]:
    """``count`` distinct variants (at least 3), the same for the same ``seed``."""
    if count < 3:
        raise ValueError("a field of variants has at least 3 bots")
    rng = random.Random(seed)
    kinds = list(WEAK[: min(len(WEAK), count // 10 + 1)])
    families = kinds + ["montecarlo"] * round((count - len(kinds)) * MONTECARLO_SHARE)
    families += ["heuristic"] * (count - len(families))
    made: list[Variant] = []
    seen: set[str] = set()
    for i, family in enumerate(families, start=1):
        for _ in range(100):  # draw again while the parameters repeat another variant's
            v = _draw(family, i, rng)
            params = repr(sorted(v.params.items()))
            if params not in seen:
                break
        seen.add(params)
        made.append(v)
    _check_names(made)
    return made


def _check_names(made: list[Variant]) -> None:
    skeletons = {name_skeleton(b) for b in BUNDLED}
    for v in made:
        problem = name_problem(v.name)
        if problem or name_skeleton(v.name) in skeletons:
            raise RuntimeError(f"bench/variants.py made a bad name {v.name!r}: {problem}")
        skeletons.add(name_skeleton(v.name))


def write(directory: Path, count: int = 30, seed: int = 1) -> list[tuple[Variant, Path]]:
    """Write :func:`variants` into ``directory``; each variant with its file."""
    directory.mkdir(parents=True, exist_ok=True)
    out = []
    for v in variants(count, seed):
        path = directory / v.filename
        path.write_text(v.source)
        out.append((v, path))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("dir", type=Path, help="folder to write the bot files into")
    ap.add_argument("--count", type=int, default=30, help="bots to write (at least 3)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the parameters")
    args = ap.parse_args(argv)
    if args.count < 3:
        print("error: --count must be at least 3", file=sys.stderr)
        return 1
    if args.dir.exists() and not args.dir.is_dir():
        print(f"error: {args.dir} is not a folder", file=sys.stderr)
        return 1
    for v, path in write(args.dir, args.count, args.seed):
        params = " ".join(f"{k}={val}" for k, val in v.params.items())
        print(f"{v.name:32} {v.family:10} {params}  {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
