"""The Plackett-Luce fit on counted choices: maximum likelihood, who is estimable, and the
per-unit scores the intervals are built from.

Log-strengths ``theta``: bot ``w`` is chosen out of a set ``S`` with probability
``exp(theta[w]) / sum(exp(theta[j]) for j in S)``. The likelihood is a sum over the *distinct*
choices weighted by their counts, so a fit costs the same at a thousand matches as at a
million. Newton's method on it converges in a handful of steps from equal strengths.

Maximum likelihood without a prior: a prior would give a bot that never placed above anybody
a number that merely reflects the prior and drifts as its losses pile up (and, through the
centring, drags everybody else). Instead :func:`components` finds where the likelihood has no
maximum (Hunter 2004, "MM algorithms for generalized Bradley-Terry models", assumption 1):
the bots that are estimable form the largest group in which every bot placed above every
other through some chain of results; a bot only ever beaten by that group (or only ever
beating it) has a one-sided bound instead (:func:`boundary_bound`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from arena.lazy import lazy_module
from arena.stats.outcomes import NO_BOT, Tally

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")

MAX_NEWTON: Final = 100
TOLERANCE: Final = 1e-10
"""Newton stops when the largest gradient entry (in choices) is below this."""


@dataclass(frozen=True)
class Choices:
    """Distinct choices and how often each was made, restricted to some bots.

    ``members`` ``(k, 3)``: the chooser first, then the others, :data:`NO_BOT` padded, as
    indices into the restricted bots; ``weight`` ``(k,)``.
    """

    members: np.ndarray
    weight: np.ndarray

    def probabilities(self, theta: np.ndarray) -> np.ndarray:
        """Each member's probability of being chosen, ``(k, 3)`` (0 for padding)."""
        present = self.members != NO_BOT
        logits = np.where(present, theta[np.where(present, self.members, 0)], -np.inf)
        logits = logits - logits.max(axis=1, keepdims=True)
        e = np.exp(logits)
        return e / e.sum(axis=1, keepdims=True)

    def loglik(self, theta: np.ndarray) -> float:
        """The log-likelihood at ``theta``."""
        p = self.probabilities(theta)[:, 0]
        with np.errstate(divide="ignore"):
            return float(np.dot(self.weight, np.log(p)))


def restrict(members: np.ndarray, keep: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Choices as seen among the bots in ``keep`` only (a bool mask over bots).

    A choice whose chooser is outside is dropped; others outside are dropped from it (the
    limit of their strength going to minus infinity: they could never have been chosen); a
    choice left with nobody to choose from is dropped. Returns the restricted members (as
    indices into the kept bots) and the index of the original choice of each.
    """
    index = np.full(len(keep) + 1, NO_BOT)  # last slot maps NO_BOT to NO_BOT
    index[np.flatnonzero(keep)] = np.arange(int(keep.sum()))
    mapped = index[members]
    others = np.sort(mapped[:, 1:], axis=1)[:, ::-1]  # kept indices first, NO_BOT last
    out = np.column_stack([mapped[:, 0], others])
    valid = (out[:, 0] != NO_BOT) & (out[:, 1] != NO_BOT)
    return out[valid], np.flatnonzero(valid)


def gradient_hessian(choices: Choices, theta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Gradient and Hessian of the log-likelihood at ``theta``."""
    n = len(theta)
    p = choices.probabilities(theta)
    m = np.where(choices.members == NO_BOT, n, choices.members)  # padding -> a dump slot
    w = choices.weight[:, None]
    grad = np.bincount(m[:, 0], choices.weight, minlength=n + 1)
    grad -= np.bincount(m.reshape(-1), (w * p).reshape(-1), minlength=n + 1)
    outer = (w * p)[:, :, None] * p[:, None, :]
    flat = (m[:, :, None] * (n + 1) + m[:, None, :]).reshape(-1)
    hess = np.bincount(flat, outer.reshape(-1), minlength=(n + 1) ** 2).reshape(n + 1, n + 1)
    hess -= np.diag(np.bincount(m.reshape(-1), (w * p).reshape(-1), minlength=n + 1))
    return grad[:n], hess[:n, :n]


def fit_choices(choices: Choices, n: int, fixed: dict[int, float] | None = None) -> np.ndarray:
    """Maximum-likelihood log-strengths of ``n`` bots (mean 0 over the free ones).

    The caller guarantees the maximum exists (the choices connect the bots both ways, see
    :func:`components`). ``fixed`` pins some bots' log-strengths (profile likelihood); the
    others are then free, with no centring.
    """
    fixed = fixed or {}
    free = np.array([i for i in range(n) if i not in fixed], dtype=np.int64)
    theta = np.zeros(n)
    for i, v in fixed.items():
        theta[i] = v
    if free.size == 0 or not len(choices.weight):
        return theta
    gauge = not fixed  # without pinned bots the level is free: centre it
    value = choices.loglik(theta)
    for _ in range(MAX_NEWTON):
        grad, hess = gradient_hessian(choices, theta)
        g, h = grad[free], hess[np.ix_(free, free)]
        if np.abs(g).max() < TOLERANCE * max(1.0, float(choices.weight.sum())):
            break
        if gauge:
            h = h - 1.0  # the likelihood is flat along "all up by one": fix the level
        step = np.linalg.solve(h, -g)
        t = 1.0
        while True:  # halve the step until the likelihood does not fall
            trial = theta.copy()
            trial[free] += t * step
            new = choices.loglik(trial)
            if new >= value - 1e-12 * abs(value) or t < 1e-8:
                break
            t /= 2
        theta, value = trial, new
    if gauge:
        theta[free] -= theta[free].mean()
    return theta


def components(members: np.ndarray, present: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Who is estimable: ``(main, side)`` over bots.

    ``main`` marks the largest group of bots that each placed above each other through a
    chain of choices (a strongly connected component of "was placed below"); ties break
    towards the group with more choices. ``side`` is +1 for a bot the main group reaches
    only from below (it was never placed below anybody of it: its strength has no upper
    limit), -1 for one below it, 0 for the main group and for bots with no chain to it
    either way (only ties, or no match at all). ``present`` marks the bots to consider.
    """
    n = len(present)
    reach = np.eye(n, dtype=bool)
    for row in members:
        chooser = row[0]
        for other in row[1:]:
            if other != NO_BOT:
                reach[other, chooser] = True  # other was placed below chooser
    for k in range(n):  # transitive closure (Floyd-Warshall; n is small)
        reach |= reach[:, [k]] & reach[[k], :]
    mutual = reach & reach.T
    best: np.ndarray | None = None
    best_key = (-1, -1)
    seen = np.zeros(n, dtype=bool)
    for i in np.flatnonzero(present):
        if seen[i]:
            continue
        group = mutual[i] & present
        seen |= group
        involved = np.isin(members[:, 0], np.flatnonzero(group)).sum()
        key = (int(group.sum()), int(involved))
        if group.sum() > 1 and key > best_key:
            best, best_key = group, key
    main = best if best is not None else np.zeros(n, dtype=bool)
    side = np.zeros(n, dtype=np.int64)
    if main.any():
        to_main = reach[:, main].any(axis=1)  # placed below someone who leads to main
        from_main = reach[main, :].any(axis=0)
        side[present & ~main & to_main] = -1
        side[present & ~main & from_main] = 1
    return main, side


def unit_scores(tally: Tally, keep: np.ndarray, theta: np.ndarray) -> np.ndarray:
    """Per-unit score vectors (gradient of each unit's log-likelihood) at ``theta``, over the
    kept bots: ``(units, kept)``. They sum to zero at the maximum; their spread over units
    is what the cluster-robust intervals measure."""
    members, origin = restrict(tally.members, keep)
    choices = Choices(members, np.ones(len(members)))
    probs = choices.probabilities(theta)
    k = len(theta)
    pos = np.full(len(tally.members), -1)
    pos[origin] = np.arange(len(origin))
    use = pos[tally.count_choice] >= 0
    unit = tally.count_unit[use]
    which = pos[tally.count_choice[use]]
    c = tally.count[use]
    m = members[which]
    p = probs[which]
    slot = np.where(m == NO_BOT, k, m)
    flat = unit[:, None] * (k + 1) + slot
    contrib = -c[:, None] * p
    contrib[:, 0] += c
    size = tally.units * (k + 1)
    scores = np.bincount(flat.reshape(-1), contrib.reshape(-1), minlength=size)
    return np.asarray(scores.reshape(tally.units, k + 1)[:, :k])


def unit_informs(tally: Tally, keep: np.ndarray) -> np.ndarray:
    """Which duplicate units hold a choice among the kept bots, per kept bot: ``(units,
    kept)``, True where the bot is a member of such a choice. A unit of shared places is
    one of them (its score is zero when the bots it shows equal are fitted equal: an
    observation of no difference, not a missing one)."""
    members, origin = restrict(tally.members, keep)
    k = int(keep.sum())
    pos = np.full(len(tally.members), -1)
    pos[origin] = np.arange(len(origin))
    use = (pos[tally.count_choice] >= 0) & (tally.count > 0)
    m = members[pos[tally.count_choice[use]]]
    unit = np.repeat(tally.count_unit[use], 3)
    slot = np.where(m == NO_BOT, k, m).reshape(-1)
    seen = np.zeros((tally.units, k + 1), dtype=bool)
    seen[unit, slot] = True
    return seen[:, :k]


def boundary_bound(
    tally: Tally, main: np.ndarray, theta: np.ndarray, bot: int, side: int, drop: float
) -> float:
    """The one-sided bound on the log-strength of a bot outside the estimable group.

    ``side`` -1: the bot was never placed above anybody of the main group; returns the
    largest log-strength at which the likelihood of its results is still ``exp(-drop)`` of
    its supremum (reached at minus infinity). With ``drop = -log(0.05)`` that is the
    strength at which the chance of faring this badly is 5 %: Clopper-Pearson's bound for
    zero successes, with the main group's strengths taken as estimated. ``side`` +1 is the
    mirror image (never placed below: a lower bound). Log-strengths are on ``theta``'s
    (the main group's) scale.
    """
    keep = main.copy()
    keep[bot] = True
    members, origin = restrict(tally.members, keep)
    me = int(np.flatnonzero(np.flatnonzero(keep) == bot)[0])
    mine = (members == me).any(axis=1)
    choices = Choices(members[mine], tally.choice_totals()[origin][mine])
    full = np.empty(len(theta) + 1)
    full[np.arange(len(full)) != me] = theta

    def loglik(t: float) -> float:
        full[me] = t
        return choices.loglik(full)

    far = 60.0 + float(np.abs(theta).max(initial=0.0))
    best = loglik(side * far)
    lo, hi = -far, far
    for _ in range(80):  # bisection: the log-likelihood is monotone in the bot's strength
        mid = (lo + hi) / 2
        inside = best - loglik(mid) <= drop
        if (side < 0) == inside:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2
