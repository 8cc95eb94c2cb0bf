"""Ratings that move as each duplicate set lands: the Plackett-Luce model of ``arena
standings``, updated per set without a full refit, with the same cluster-robust intervals.

The state is a Gaussian (Laplace) approximation of the log-strengths: the estimate ``theta``
and its covariance ``cov``, the inverse of the information of every choice counted so far plus
a weak prior. A set touches three bots, and its information is a 3 x 3 block, so one set is
a rank-3 Woodbury update of ``cov`` and a move to the new mode of the old Gaussian times
(no refit); every :data:`REFIT_EVERY` sets a full fit, warm-started from the running estimate
(a couple of Newton steps), re-linearises everything at the current estimate. What the model
counts is exactly what :mod:`arena.stats.outcomes` counts: each match's placing as "first
of three" and "second of two" choices, a shared place an equal share of each order it
allows, tallied per duplicate set.

The weak prior (log-strengths normal around the field's mean with sd :data:`PRIOR_SD`) is
what lets a ladder rate a bot after its first set: a bot that has lost every match has no
maximum-likelihood strength (``arena standings`` shows it as a one-sided bound), but a
scheduler needs a number and a spread for it at once. Once a bot has a few sets its
information swamps the prior: 20 sets of six matches are about 45 units of information, the
prior 0.25, so a bot two logits from the mean moves about a hundredth of a logit (two rating
points; checked against :func:`arena.stats.compute` in the tests).

The intervals shown (:meth:`LadderRatings.standings`) are those of ``arena standings``: the
contrast of a bot against the centre (the unweighted mean of the rated bots), its variance
the cluster-robust sandwich over duplicate sets (the set, not the match, is the independent
sample) in its jackknife form (each set's score scaled by its own leverage, see
:meth:`LadderRatings._jackknife_scores`), Student t with the bot's own sets less one degrees
of freedom (as ``arena standings``), floored by :data:`arena.stats.intervals.MIN_DEFF`. An
adaptive schedule leaves the likelihood unchanged, but a schedule of neighbours alone can
leave a whole end of the table measured off by more than these intervals show; the rule's
random sets (:attr:`arena.ladder.policy.Parameters.random_sets`) tie the ends to the centre,
and ``bench/ladder.py`` measures the coverage under the ladder's own schedule
(docs/ladder.md).
"""

from __future__ import annotations

import math
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from arena.lazy import lazy_module
from arena.stats import BASE, ELO_SCALE
from arena.stats import intervals as ivals
from arena.stats.outcomes import NO_BOT, order_choices
from arena.stats.plackett_luce import Choices, gradient_hessian

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")

PRIOR_SD: Final = 2.0
"""Prior sd of a log-strength around the field's mean (2 logits, about 350 rating points).
It also offsets the outward bias of a maximum-likelihood estimate from few sets (the ends of
the table shown further out than they are): simulated at 1,000 bots with 9 to 30 sets
each, an sd of 3 left the estimates' slope against the truth at 1.12 to 1.04 and the
intervals' coverage at 0.89, 2 gave 0.98 to 0.995 and 0.957, 1.5 over-shrank (0.88 to
0.95, coverage 0.87); docs/ladder.md. Measured on one simulated field of spread 1.5 logits:
a field of a very different spread would need it measured again."""

PROVISIONAL_SETS: Final = 10
"""A bot with fewer sets is shown as provisional (``k of 10 sets``). Its interval is honest
from its first sets (simulated newcomers' intervals held the truth at 95 of 96 checkpoints
at their 5th and 10th sets, bench/ladder.py), but at 5 sets it is ±140 to ±200 rating points
wide and at 10 about ±90, so its place in the table says little yet (docs/ladder.md)."""

REFIT_EVERY: Final = 100
"""Fewest sets between two full fits (more in a large field: as many as there are bots, so
that the ``O(n³)`` fit costs about as much per set as the ``O(n²)`` updates). A young ladder
also refits each time its sets grow by :data:`GROWTH` (10, 13, 16, 20, ...): early estimates
move most, and a fit of few sets is cheap. Between them each
set moves the estimate to the mode of the old Gaussian times its likelihood, the information
of the older sets taken at the estimates where they were counted; the full fit re-linearises
(measured drift: docs/ladder.md)."""

GROWTH: Final = 1.25
"""A full fit is also due once the sets counted grew by this factor since the last one."""

MAX_NEWTON: Final = 50
TOLERANCE: Final = 1e-9
"""A full fit stops when the largest gradient entry (in choices) is below this."""

CHUNK: Final = 4096
"""Sets per block when summing the robust variances (bounds the memory at ``CHUNK x n``)."""


@dataclass(frozen=True)
class SetResult:
    """One finished duplicate set: its three bots and, per match, the places of
    ``bots[0]``, ``bots[1]`` and ``bots[2]`` (1 best; shared places allowed). The seating
    does not matter to the ratings, only who placed above whom."""

    bots: tuple[int, int, int]
    places: tuple[tuple[int, int, int], ...]


@dataclass(frozen=True)
class LadderStanding:
    """A bot's line: rating on the scale of ``arena standings`` (1500 the centre, 400 points
    per factor 10), its 95 % interval (None below two sets, its own or overall) and the sets
    it played."""

    bot: int
    rating: float
    low: float | None
    high: float | None
    sets: int

    @property
    def provisional(self) -> bool:
        """Fewer than :data:`PROVISIONAL_SETS` sets: shown as provisional."""
        return self.sets < PROVISIONAL_SETS


def set_choices(places: Iterable[tuple[int, int, int]]) -> dict[tuple[int, int, int], float]:
    """A set's matches as counted Plackett-Luce choices over the slots 0-2 of its bots:
    ``(chooser, other, other)``, the others sorted and a choice of two padded with
    :data:`NO_BOT`, a shared place counting an equal share of each order it allows (as
    :func:`arena.stats.outcomes.tally` counts them)."""
    out: defaultdict[tuple[int, int, int], float] = defaultdict(float)
    for match in places:
        for chosen, others, share in order_choices(list(enumerate(match))):
            rest = sorted(others, reverse=True) + [NO_BOT] * (2 - len(others))
            out[(chosen, rest[0], rest[1])] += share
    return out


class _Grow:
    """A numpy array that grows along its first axis (amortised doubling)."""

    def __init__(self, shape: tuple[int, ...], dtype: type) -> None:
        self._buf: np.ndarray = np.zeros((16, *shape), dtype=dtype)
        self.size = 0

    def extend(self, rows: np.ndarray) -> None:
        need = self.size + len(rows)
        if need > len(self._buf):
            bigger = np.zeros(
                (max(need, 2 * len(self._buf)), *self._buf.shape[1:]), self._buf.dtype
            )
            bigger[: self.size] = self._buf[: self.size]
            self._buf = bigger
        self._buf[self.size : need] = rows
        self.size = need

    @property
    def view(self) -> np.ndarray:
        return self._buf[: self.size]


class LadderRatings:
    """Plackett-Luce ratings of a growing field, updated per duplicate set.

    >>> r = LadderRatings()
    >>> r.add_bots([1, 2, 3])
    >>> r.add_set(SetResult((1, 2, 3), ((1, 2, 3),) * 4 + ((2, 1, 3),) * 2))
    >>> [s.bot for s in r.standings()]
    [1, 2, 3]
    """

    def __init__(
        self, prior_sd: float = PRIOR_SD, refit_every: int | None = None, growth: float = GROWTH
    ) -> None:
        self.prior = 1.0 / prior_sd**2
        self.growth = growth
        self._refit_every = refit_every
        self.ids: list[int] = []
        self.index: dict[int, int] = {}
        self.theta = np.zeros(0)
        self.cov = np.zeros((0, 0))
        self.info = np.zeros(0)  # diagonal of the information
        self.sets = np.zeros(0, dtype=np.int64)  # sets played, per bot
        self._set_bots = _Grow((3,), np.int64)  # per set: its bots (indices)
        self._ch_set = _Grow((), np.int64)  # per distinct choice of a set: the set
        self._ch_slots = _Grow((3,), np.int64)  # its members as slots of the set's bots
        self._ch_count = _Grow((), np.float64)  # how often it was made
        self._since_refit = 0
        self._refit_at = 0  # sets counted at the last full fit

    @property
    def n(self) -> int:
        """Number of bots."""
        return len(self.ids)

    @property
    def refit_every(self) -> int:
        """Sets between two full fits: as given, else :data:`REFIT_EVERY` or ``n``."""
        return self._refit_every or max(REFIT_EVERY, self.n)

    @property
    def set_count(self) -> int:
        """Number of sets counted."""
        return self._set_bots.size

    def add_bots(self, bots: Sequence[int]) -> None:
        """Add bots (version ids) at the field's mean with the prior's spread; known ids
        are skipped."""
        new = [b for b in dict.fromkeys(bots) if b not in self.index]
        if not new:
            return
        n, k = self.n, len(new)
        for b in new:
            self.index[b] = len(self.ids)
            self.ids.append(b)
        cov = np.zeros((n + k, n + k))
        cov[:n, :n] = self.cov
        cov[n:, n:] = np.eye(k) / self.prior
        self.cov = cov
        self.theta = np.concatenate([self.theta, np.zeros(k)])
        self.info = np.concatenate([self.info, np.zeros(k)])
        self.sets = np.concatenate([self.sets, np.zeros(k, dtype=np.int64)])

    def add_set(self, result: SetResult) -> None:
        """Count one finished set: the new mode and a rank-3 update of the covariance;
        a full fit every :data:`REFIT_EVERY` sets."""
        if len(set(result.bots)) != 3:
            raise ValueError(f"a set needs three different bots, got {result.bots}")
        self.add_bots(result.bots)
        t = np.asarray([self.index[b] for b in result.bots], dtype=np.int64)
        counted = set_choices(result.places)
        g = self.set_count
        self._set_bots.extend(t[None, :])
        self.sets[t] += 1
        if counted:
            slots = np.asarray(list(counted), dtype=np.int64)
            self._ch_set.extend(np.full(len(slots), g))
            self._ch_slots.extend(slots)
            self._ch_count.extend(np.asarray(list(counted.values()), dtype=float))
            choices = Choices(slots, np.asarray(list(counted.values()), float))
            grad, hess = self._mode(t, choices)
            self._absorb(t, grad, -hess)
        self._since_refit += 1
        if self._since_refit >= self.refit_every or self.set_count >= self.growth * max(
            8, self._refit_at
        ):
            self.refit()

    def _mode(self, t: np.ndarray, choices: Choices) -> tuple[np.ndarray, np.ndarray]:
        """The new set's gradient and Hessian at the posterior's new mode.

        With the old posterior ``N(theta, cov)`` and a set that depends only on its bots
        ``t``, the new mode is ``theta + cov[:, t] @ grad(x)`` where ``x``, the bots' own
        new values, solves ``x = theta[t] + cov[t, t] @ grad(x)``: three unknowns, a few
        Newton steps, whatever the field's size (one plain Newton step from the old mode
        overshoots after a bot's first sets, when its spread is the prior's)."""
        mu, s = self.theta[t], self.cov[np.ix_(t, t)]
        x = mu.copy()
        grad, hess = gradient_hessian(choices, x)
        resid = x - mu - s @ grad
        for _ in range(MAX_NEWTON):
            if np.abs(resid).max() < TOLERANCE:
                break
            step = np.linalg.solve(np.eye(3) - s @ hess, -resid)
            k = 1.0
            while True:  # halve the step until the residual shrinks
                trial = x + k * step
                g, h = gradient_hessian(choices, trial)
                r = trial - mu - s @ g
                if np.abs(r).max() < np.abs(resid).max() or k < 1e-6:
                    break
                k /= 2
            x, grad, hess, resid = trial, g, h, r
        return grad, hess

    def _absorb(self, t: np.ndarray, grad: np.ndarray, a: np.ndarray) -> None:
        """Add information ``a`` (3 x 3) on bots ``t`` and move to ``theta + cov @ grad``
        (the old covariance: ``grad`` is taken at the new mode, see :meth:`_mode`).

        Woodbury: ``(P + U a Uᵀ)⁻¹ = Σ - Σ U (I + a Σ_tt)⁻¹ a Uᵀ Σ`` with ``Σ = P⁻¹``; no
        inverse of ``a`` (which is singular: "all three up by one" changes nothing)."""
        side = self.cov[:, t]
        self.theta += side @ grad
        k = np.linalg.solve(np.eye(3) + a @ side[t], a)
        self.cov -= (side @ k) @ side.T
        self.info[t] += np.diag(a)

    def _choices(self) -> Choices:
        """Every counted choice, members as bot indices."""
        bots = self._set_bots.view[self._ch_set.view]
        slots = self._ch_slots.view
        members = np.where(
            slots == NO_BOT, NO_BOT, np.take_along_axis(bots, np.maximum(slots, 0), 1)
        )
        return Choices(members, self._ch_count.view)

    def refit(self) -> None:
        """The full maximum-a-posteriori fit (Newton from the running estimate) and the
        information re-taken there. Cost ``O(choices + n³)``: once per
        :data:`REFIT_EVERY` sets."""
        from scipy import linalg  # type: ignore[import-untyped]  # loaded when computed

        self._since_refit, self._refit_at = 0, self.set_count
        if not self.n:
            return
        choices = self._choices()
        eye = np.eye(self.n)

        def posterior(theta: np.ndarray) -> float:
            return choices.loglik(theta) - 0.5 * self.prior * float(theta @ theta)

        theta, value = self.theta.copy(), posterior(self.theta)
        for _ in range(MAX_NEWTON):
            grad, hess = gradient_hessian(choices, theta)
            grad -= self.prior * theta
            hess -= self.prior * eye
            if np.abs(grad).max() < TOLERANCE * max(1.0, float(choices.weight.sum())):
                break
            step = linalg.cho_solve(linalg.cho_factor(-hess), grad)
            t = 1.0
            while True:  # halve the step until the posterior does not fall
                trial = theta + t * step
                new = posterior(trial)
                if new >= value - 1e-12 * abs(value) or t < 1e-8:
                    break
                t /= 2
            theta, value = trial, new
        _, hess = gradient_hessian(choices, theta)
        self.theta = theta
        self.info = -np.diag(hess)
        self.cov = linalg.cho_solve(linalg.cho_factor(self.prior * eye - hess), eye)

    def full_fit(self) -> np.ndarray:
        """The log-strengths a full fit from scratch gives (for checking the running ones;
        the state is left as it was)."""
        saved = self.theta, self.cov, self.info, self._since_refit, self._refit_at
        self.theta = np.zeros(self.n)
        self.refit()
        fitted = self.theta
        self.theta, self.cov, self.info, self._since_refit, self._refit_at = saved
        return fitted

    def _scores(self) -> np.ndarray:
        """Per-set scores (gradient of each set's log-likelihood) over its three slots,
        ``(sets, 3)``, at the current estimate."""
        choices = self._choices()
        p = choices.probabilities(self.theta)
        slots = self._ch_slots.view
        contrib = -self._ch_count.view[:, None] * p
        contrib[:, 0] += self._ch_count.view
        flat = self._ch_set.view[:, None] * 3 + np.maximum(slots, 0)
        keep = slots != NO_BOT
        scores = np.bincount(flat[keep], contrib[keep], minlength=3 * self.set_count)
        return scores.reshape(-1, 3)

    def _set_information(self) -> np.ndarray:
        """Each set's observed information about its three bots at the current estimate,
        ``(sets, 3, 3)`` over its slots."""
        p = self._choices().probabilities(self.theta)
        slots, count = self._ch_slots.view, self._ch_count.view
        present = slots != NO_BOT
        p = np.where(present, p, 0.0)
        block = count[:, None, None] * (p[:, :, None] * np.eye(3) - p[:, :, None] * p[:, None, :])
        slot = np.maximum(slots, 0)
        flat = self._ch_set.view[:, None, None] * 9 + slot[:, :, None] * 3 + slot[:, None, :]
        keep = present[:, :, None] & present[:, None, :]
        info = np.bincount(flat[keep], block[keep], minlength=9 * self.set_count)
        return info.reshape(-1, 3, 3)

    def _jackknife_scores(self) -> np.ndarray:
        """Per-set scores scaled to what leaving the set out would move (the CR3, or
        jackknife, form of the sandwich): ``(I - A_g Σ_tt)⁻¹ s_g`` for set ``g`` with
        information ``A_g`` on its bots ``t``. The plain sandwich is biased low where a
        bot's interval rests on few informative sets (a young bot, an end of the table);
        this removes the leverage of each set from its own residual."""
        scores = self._scores()
        if not self.set_count:
            return scores
        bots = self._set_bots.view
        lever = np.eye(3) - self._set_information() @ self.cov[bots[:, :, None], bots[:, None, :]]
        return np.asarray(np.linalg.solve(lever, scores[:, :, None])[:, :, 0])

    def centre(self) -> np.ndarray:
        """The centre's weights: the unweighted mean of the rated bots (two sets or more;
        of every bot before any is rated). Not weighted by information, as ``arena
        standings`` weighs a tournament's bots: on a ladder the schedule decides who gathers
        information, and a centre weighted by it moved 1500 by 40 to 55 points once the
        sets concentrated on the top of the table, nobody's strength changing; a plain mean
        moves only when the field does."""
        rated = self.sets >= ivals.MIN_UNITS
        w = (rated if rated.any() else np.ones(self.n, dtype=bool)).astype(float)
        return np.asarray(w / max(1.0, w.sum()))

    def _robust(self, cols: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, int]:
        """Model-based and cluster-robust variances of ``theta[j] - w @ theta`` for the bots
        ``cols``, and the number of sets with a decisive result."""
        sw = self.cov @ w
        lever = self.cov[:, cols] - sw[:, None]  # cov @ (e_j - w), one column per bot
        model = self.cov[cols, cols] - 2 * sw[cols] + float(w @ sw)
        scores = self._jackknife_scores()
        bots = self._set_bots.view
        decisive = np.abs(scores).sum(axis=1) > 0
        total = np.zeros(len(cols))
        for start in range(0, self.set_count, CHUNK):
            s, b = scores[start : start + CHUNK], bots[start : start + CHUNK]
            u = sum(s[:, k, None] * lever[b[:, k]] for k in range(3))
            total += (np.asarray(u) ** 2).sum(axis=0)
        g = int(decisive.sum())
        robust = g / max(1, g - 1) * total
        return model, np.maximum(robust, ivals.MIN_DEFF * model), g

    @staticmethod
    def _t_quantiles(sets: np.ndarray) -> np.ndarray:
        """The 95 % Student-t quantile for each variance resting on ``sets`` sets (``sets - 1``
        degrees of freedom)."""
        values, back = np.unique(sets - 1, return_inverse=True)
        quantile = np.asarray([ivals.t_quantile(float(d)) for d in values.tolist()])
        return np.asarray(quantile[back.reshape(-1)])

    def standings(self, bots: Sequence[int] | None = None) -> list[LadderStanding]:
        """The ladder's table (best first), or the lines of ``bots`` in that order: rating
        and 95 % cluster-robust interval, as ``arena standings`` computes them, at the
        current estimate. Cost ``O(n² + sets·len(bots))``."""
        if not self.n:
            return []
        cols = (
            np.arange(self.n)
            if bots is None
            else np.asarray([self.index[b] for b in bots], dtype=np.int64)
        )
        w = self.centre()
        anchor = float(w @ self.theta)
        _, robust, g = self._robust(cols, w)
        # Student t with the bot's own sets less one, as ``arena standings`` counts them: a
        # bot's robust variance rests on its own sets, not on all of the ladder's (with G - 1
        # the intervals of a ladder of 1,000 bots at ten sets each held 0.86 to 0.91).
        half = self._t_quantiles(np.maximum(self.sets[cols], ivals.MIN_UNITS)) * np.sqrt(robust)
        lines = []
        for j, h in zip(cols.tolist(), half.tolist(), strict=True):
            est = float(self.theta[j]) - anchor
            shown = self.sets[j] >= ivals.MIN_UNITS and g >= ivals.MIN_UNITS and math.isfinite(h)
            lines.append(
                LadderStanding(
                    bot=self.ids[j],
                    rating=BASE + ELO_SCALE * est,
                    low=BASE + ELO_SCALE * (est - h) if shown else None,
                    high=BASE + ELO_SCALE * (est + h) if shown else None,
                    sets=int(self.sets[j]),
                )
            )
        return sorted(lines, key=lambda s: -s.rating) if bots is None else lines
