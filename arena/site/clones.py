"""The clone flag of the ladder's page and of a bot's page: a version whose code is the code of
another owner's bot, or whose decisions a collusion report found all but identical to
another's, with the evidence (which bot, what matched, the statistic).

Read-only. Code comes from :meth:`arena.store.Store.code_twins` (the same SHA-256, or the same
:func:`arena.store.bots.code_digest`: identical once comments, layout, docstrings and the
strings given to ``name`` and ``author`` are set aside; no source leaves the store); decisions
from the flagged ``clone_pairs`` rows that ``arena run`` stores for a round robin
(:mod:`arena.stats.collusion`; ``arena standings --collusion`` prints the same report, for a
ladder too). Two bots of one owner are never flagged against each other: an owner's bots
already share its wait bound on a ladder (docs/ladder.md). A bot stored without an owner key
counts as its own owner; the bundled bots are stored under the owner ``bundled``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass

from arena.site.data import BotRef
from arena.stats.collusion import CLONE_SHARE
from arena.store import Store


@dataclass(frozen=True)
class CloneFlag:
    """Why a version is flagged: the other version and the evidence, in words."""

    other: BotRef
    kind: str  # "identical code", "near-identical code" or "identical decisions"
    evidence: str


def clone_flags(
    store: Store, refs: dict[int, BotRef], versions: Sequence[int] | None = None
) -> dict[int, list[CloneFlag]]:
    """Every flagged version of ``refs`` (of ``versions`` only, when given) with its flags,
    code first, each other bot once per kind."""
    out: dict[int, list[CloneFlag]] = defaultdict(list)
    seen: set[tuple[int, int, str]] = set()
    for a, b, same, digest in store.code_twins(versions):
        if a not in refs or b not in refs or (a, refs[b].bot_id, same) in seen:
            continue
        seen.add((a, refs[b].bot_id, same))
        twin = _named(refs[b])
        if same == "identical":
            words = f"the same file as {twin} (SHA-256 {digest[:12]}), of another owner"
        else:
            words = (
                f"the same code as {twin} once comments, layout, docstrings and its name are"
                f" set aside (code digest {digest[:12]}), of another owner"
            )
        out[a].append(CloneFlag(refs[b], f"{same} code", words))
    for row in store.flagged_clone_pairs():
        a, b = row.bot_a, row.bot_b
        if a not in refs or b not in refs:
            continue
        for me, other in ((a, b), (b, a)):
            if versions is not None and me not in versions:
                continue
            if (me, refs[other].bot_id, "decisions") in seen:
                continue
            seen.add((me, refs[other].bot_id, "decisions"))
            out[me].append(
                CloneFlag(
                    refs[other],
                    "identical decisions",
                    f"{row.identical} of {row.comparable} comparable decisions the same as"
                    f" {_named(refs[other])} ({row.share:.1%}; flagged above"
                    f" {CLONE_SHARE:.0%}) in tournament {row.tournament_id[:12]}",
                )
            )
    return dict(out)


def _named(ref: BotRef) -> str:
    return f"{ref.name} v{ref.version}"
