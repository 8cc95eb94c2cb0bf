"""The keep's options as a list that is made only when it is read as a whole.

A maker who takes the dummy keeps 5 cards of 10 (11 for a dealer-maker who picked up): 252
(462) options. :meth:`arena.game.GameState.legal_actions` returns them as a
:class:`KeepOptions`, a ``list`` whose length and items by index are computed from the pool
(one tuple per item read), so a search that draws one option by index builds one tuple, not
all of them. Any other use (iterating aside, which is computed too) first fills the list with
every option, in order, and from then on it is a plain list: equal to, printed, copied,
sorted, pickled, serialised and changed like the list of every option. (Only C code that reads
a list's storage directly, such as ``orjson.dumps``, sees an unread one as empty: give it
``list(options)``.)

>>> pool = ("9C", "JC", "AC", "TS", "QS", "9H", "KH", "AH", "TD", "JD")
>>> options = keep_options(pool)
>>> len(options), options[0], options[-1]
(252, ('9C', 'JC', 'AC', 'TS', 'QS'), ('9H', 'KH', 'AH', 'TD', 'JD'))
>>> from itertools import combinations
>>> options == list(combinations(pool, 5))
True

:func:`keep` applies a keep for :class:`~arena.game.GameState`: an option read from its
options by index is taken as it is (nothing to check), any other answer is checked.

Pure (standard library, :mod:`arena.cards` and :mod:`arena.rules`) and staged for bots with
:mod:`arena.game`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from itertools import combinations
from operator import itemgetter
from typing import Any, Final

from arena import cards
from arena.rules import _is_keep

__all__ = ["KeepOptions", "keep_options", "option_lists", "keep"]

ORDER: Final = {
    c: i for i, c in enumerate(sorted(cards._KEY, key=cards._KEY.__getitem__))
}.__getitem__
"""A card's place in the canonical order (:func:`~arena.cards.sort_cards`'s, as one int)."""

Pick = Callable[[tuple[str, ...]], tuple[str, ...]]

_PICKS: Final[dict[int, list[Pick]]] = {
    n: [itemgetter(*c) for c in combinations(range(n), 5)] for n in range(7, 12)
}
"""``_PICKS[n][i](pool)``: option ``i`` of a sorted pool of ``n`` cards, as
``combinations(pool, 5)`` lists it (one ``itemgetter`` per option, made once)."""
_RESTS: Final[dict[int, list[Pick]]] = {
    n: [itemgetter(*(j for j in range(n) if j not in c)) for c in combinations(range(n), 5)]
    for n in range(7, 12)
}
"""``_RESTS[n][i](pool)``: the cards option ``i`` leaves, in order (2 to 6 of them)."""


class _Made(list[Any]):
    """A :class:`KeepOptions` once filled: a plain list (same layout, nothing overridden)."""

    __slots__ = ("_pool", "_pick", "_given", "_at")
    _pool: tuple[str, ...]
    _pick: list[Pick]
    _given: tuple[str, ...] | None  # the option last read by index, and its index
    _at: int


class KeepOptions(_Made):
    """Every 5-card subset of a sorted pool, each a sorted tuple, in ``combinations`` order.

    ``len()``, indexing by an int and iterating are computed from the pool; anything else
    fills the list first (then its class is a plain list subclass with the same items).
    """

    __slots__ = ()

    def __len__(self) -> int:
        return len(self._pick)

    def __getitem__(self, index: Any) -> Any:
        if type(index) is int:  # negative and out-of-range indices as a list has them
            self._given = given = self._pick[index](self._pool)
            self._at = index
            return given
        return list.__getitem__(self._whole(), index)

    def __iter__(self) -> Iterator[tuple[str, ...]]:
        return combinations(self._pool, 5)

    def __radd__(self, other: Any) -> Any:
        if not isinstance(other, list):
            return NotImplemented
        return other + self._whole()

    def __reduce_ex__(self, protocol: Any) -> Any:
        """Copied and pickled as the plain list of every option."""
        return (list, (list(self),))

    def _whole(self) -> list[tuple[str, ...]]:
        """Fill the list with every option; from now on it is a plain list."""
        list.extend(self, combinations(self._pool, 5))
        self.__class__ = _Made  # type: ignore[assignment]
        return self


def keep(
    options: KeepOptions | _Made | None, action: Any, pool: list[str]
) -> tuple[list[str], list[str]] | None:
    """The cards kept and the cards left, both sorted, when ``action`` keeps 5 of ``pool``
    (hand + dummy); ``None`` when it does not. The option last read by index from
    ``options`` (the pool's, or ``None``) is known good: it is taken without a check."""
    if options is not None and action is options._given is not None:
        known: tuple[str, ...] = options._given
        left = _RESTS[len(options._pool)][options._at](options._pool)
        return list(known), list(left)
    if not _is_keep(action, pool):
        return None
    (rest := set(pool)).difference_update(action)
    return sorted(action, key=ORDER), sorted(rest, key=ORDER)


def option_lists(pool: list[str]) -> list[list[str]]:
    """The keep's options as the protocol lists them (``obs["legal"]``): sorted lists."""
    return list(map(list, combinations(sorted(pool, key=ORDER), 5)))


def _filling(name: str) -> Callable[..., Any]:
    """List method ``name``, after filling the list (and a lazy argument: ``a == b``)."""
    method = getattr(list, name)

    def filled(self: KeepOptions, *args: Any, **kwargs: Any) -> Any:
        for arg in args:
            if arg.__class__ is KeepOptions:
                arg._whole()
        return method(self._whole(), *args, **kwargs)

    filled.__name__ = filled.__qualname__ = name
    filled.__doc__ = method.__doc__
    return filled


for _name in (
    "__init__", "__contains__", "__delitem__", "__setitem__", "__eq__", "__ne__", "__lt__",
    "__le__", "__gt__", "__ge__", "__add__", "__iadd__", "__mul__", "__rmul__", "__imul__",
    "__repr__", "__reversed__", "__sizeof__", "append", "clear", "copy", "count", "extend",
    "index", "insert", "pop", "remove", "reverse", "sort",
):  # fmt: skip
    setattr(KeepOptions, _name, _filling(_name))

_new: Final = list.__new__


def keep_options(pool: tuple[str, ...]) -> KeepOptions:
    """The options of keeping 5 cards of ``pool`` (sorted in the canonical order, 7 to 11
    cards: a maker holds 10 or 11 with the dummy), unmade until read."""
    options: KeepOptions = _new(KeepOptions)
    options._pool = pool
    options._pick = _PICKS[len(pool)]
    options._given = None
    return options
