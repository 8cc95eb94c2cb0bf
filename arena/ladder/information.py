"""What one duplicate set is expected to teach about its three bots: the Plackett-Luce
information of a set, and the gain in certainty of the ratings and of the order it buys.

Everything is batched over candidate triples (arrays of shape ``(m, 3)`` and
``(m, 3, 3)``) and closed form, so scoring a few hundred triples costs well under a
millisecond of numpy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from arena.lazy import lazy_module

if TYPE_CHECKING:
    import numpy as np
else:  # loaded on first use: a read command need not pay for them
    np = lazy_module("numpy")


MATCHES_PER_SET: Final = 6
"""The six seatings of a duplicate set: six placings of the same three bots."""

PAIRS: Final = ((0, 1), (0, 2), (1, 2))


def set_information(theta: np.ndarray) -> np.ndarray:
    """Expected Fisher information of one set about its bots' log-strengths, ``(m, 3, 3)``
    for log-strengths ``(m, 3)``.

    A placing is "first of three" then "second of two". The information of a choice from a
    set with probabilities ``p`` is ``diag(p) - p pᵀ`` whatever was chosen, so the expected
    information is the first choice's plus, for each possible winner ``w`` (probability
    ``p_w``), the pairwise choice between the other two. Shared places (which make fewer
    choices) are ignored: the figure is an upper bound used only to compare triples.
    """
    from scipy import special  # type: ignore[import-untyped]  # loaded when computed

    z = theta - theta.max(axis=1, keepdims=True)
    e = np.exp(z)
    p = e / e.sum(axis=1, keepdims=True)
    info = np.einsum("mi,ij->mij", p, np.eye(3)) - p[:, :, None] * p[:, None, :]
    for w in range(3):
        a, b = [i for i in range(3) if i != w]
        q = special.expit(theta[:, a] - theta[:, b])
        v = p[:, w] * q * (1 - q)
        d = np.zeros(3)
        d[a], d[b] = 1.0, -1.0
        info += v[:, None, None] * np.outer(d, d)[None]
    return np.asarray(MATCHES_PER_SET * info)


def posterior(cov: np.ndarray, info: np.ndarray) -> np.ndarray:
    """The covariance after adding ``info``: ``(cov⁻¹ + info)⁻¹ = (I + cov·info)⁻¹ cov``,
    batched, with no inverse of the (singular) information."""
    eye = np.broadcast_to(np.eye(3), cov.shape)
    return np.asarray(np.linalg.solve(eye + cov @ info, cov))


def misorder(theta: np.ndarray, var: np.ndarray) -> np.ndarray:
    """Chance that the shown order of two bots is wrong, doubled (1 for a pair the data
    cannot tell apart, 0 for a settled one): ``2 Φ(-|Δ| / sd(Δ))``."""
    from scipy import special  # loaded when computed

    sd = np.sqrt(np.maximum(var, 1e-300))
    return np.asarray(2 * special.ndtr(-np.abs(theta) / sd))


def gain(
    theta: np.ndarray,
    cov: np.ndarray,
    order_weight: np.ndarray,
    rating_weight: np.ndarray | None = None,
) -> np.ndarray:
    """Expected gain in certainty from one set of each triple, ``(m,)``.

    ``theta`` ``(m, 3)`` and ``cov`` ``(m, 3, 3)``: the triples' estimates and covariance;
    ``order_weight`` ``(m, 3)``: how much the order of each pair (:data:`PAIRS`) matters
    (its chance of being shown wrong, raised for neighbours that never met and for the top
    of the table; see :class:`arena.ladder.policy.Parameters`); ``rating_weight`` ``(3,)``:
    how much each slot's own rating counts (all 1 by default). The gain is in nats of a
    normal: ``½ log(var / var')`` for each bot's rating and, weighted, for each pair's
    difference, so one set counts for as much as it shrinks what is still unknown (a bot
    with few sets gains much, a settled bot little) and no spread can run away with it.
    """
    after = posterior(cov, set_information(theta))
    before_d = np.diagonal(cov, axis1=1, axis2=2)
    after_d = np.diagonal(after, axis1=1, axis2=2)
    weight = np.ones(3) if rating_weight is None else rating_weight
    total = 0.5 * np.log(np.maximum(before_d, 1e-300) / np.maximum(after_d, 1e-300)) @ weight
    for k, (i, j) in enumerate(PAIRS):
        v0 = cov[:, i, i] + cov[:, j, j] - 2 * cov[:, i, j]
        v1 = after[:, i, i] + after[:, j, j] - 2 * after[:, i, j]
        total += order_weight[:, k] * 0.5 * np.log(np.maximum(v0, 1e-300) / np.maximum(v1, 1e-300))
    return np.asarray(total)
