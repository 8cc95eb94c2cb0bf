"""The keep's options made on demand (arena.keeps): the same list as every option, made whole.

``GameState.legal_actions()`` returns a :class:`~arena.keeps.KeepOptions` in the keep phase: a
list whose length and items by index are computed. Whatever a caller does with it, it must be
the list of every option: compared, copied, pickled, serialised, changed, sorted.
"""

from __future__ import annotations

import copy
import json
import pickle
import random
from collections.abc import Callable
from itertools import combinations
from typing import Any

import pytest

from arena.cards import deck
from arena.engine import Rules, deal_for
from arena.game import GameState
from arena.keeps import ORDER, KeepOptions, keep_options

POOL = ("9C", "JC", "AC", "TS", "QS", "9H", "KH", "AH", "TD", "JD")
EVERY = list(combinations(POOL, 5))


def _appended(options: list[Any]) -> list[Any]:
    options.append("x")
    return options


def _shuffled(options: list[Any]) -> list[Any]:
    random.Random(1).shuffle(options)
    return sorted(options)


USES: dict[str, tuple[Callable[[list[Any]], Any], Any]] = {
    "len": (len, 252),
    "every index": (lambda o: [o[i] for i in range(-252, 252)], EVERY + EVERY),
    "iterate": (list, EVERY),
    "equal": (
        lambda o: (o == EVERY, EVERY == o, o != EVERY, o == keep_options(POOL)),
        (True, True, False, True),
    ),
    "order": (lambda o: (o < EVERY, o <= EVERY, o > EVERY[:3]), (False, True, True)),
    "slice": (lambda o: o[3:9], EVERY[3:9]),
    "json": (lambda o: json.loads(json.dumps(o)), [list(x) for x in EVERY]),
    "pickle": (lambda o: pickle.loads(pickle.dumps(o)), EVERY),
    "copy": (copy.copy, EVERY),
    "deepcopy": (copy.deepcopy, EVERY),
    "add": (lambda o: (o + ["x"], ["x"] + o), (EVERY + ["x"], ["x"] + EVERY)),
    "multiply": (lambda o: (o * 2, 2 * o), (EVERY * 2, EVERY * 2)),
    "extend another": (lambda o: [*o], EVERY),
    "tuple and set": (lambda o: (tuple(o), set(o)), (tuple(EVERY), set(EVERY))),
    "reversed": (lambda o: list(reversed(o)), EVERY[::-1]),
    "contains and index": (
        lambda o: (EVERY[7] in o, ("x",) in o, o.index(EVERY[9])),
        (True, False, 9),
    ),
    "repr": (repr, repr(EVERY)),
    "str": (str, str(EVERY)),
    "truth": (bool, True),
    "append": (lambda o: (_appended(o), len(o)), (EVERY + ["x"], 253)),
    "shuffle": (_shuffled, sorted(EVERY)),
    "sample": (lambda o: random.Random(3).sample(o, 5), random.Random(3).sample(EVERY, 5)),
    "pop": (lambda o: (o.pop(), len(o)), (EVERY[-1], 251)),
}  # fmt: skip


@pytest.mark.parametrize("use", USES)
def test_options_are_the_list_of_every_option(use: str) -> None:
    run, expected = USES[use]
    options = keep_options(POOL)
    assert isinstance(options, list)
    assert run(options) == expected


@pytest.mark.parametrize("index", [252, -253])
def test_an_index_out_of_range_is_an_index_error(index: int) -> None:
    with pytest.raises(IndexError, match="list index out of range"):
        keep_options(POOL)[index]


def _keep_state(seed: int) -> GameState:
    """The first hand of ``seed`` where a maker not alone takes the dummy."""
    for k in range(50):
        state = GameState(deal_for(seed, k), Rules(), k % 3)
        while state.phase not in ("keep", "over"):
            legal = state.legal_actions()
            state.apply("pass" if state.phase == "alone" else legal[-1])
        if state.phase == "keep":
            return state
    raise AssertionError("no keep")


@pytest.mark.parametrize("seed", range(6))
def test_a_keep_read_by_index_plays_as_the_same_keep_given_as_a_list(seed: int) -> None:
    """The option a search draws by index (taken unchecked) and the same 5 cards given in
    another order as a list (checked) leave the same state; the state's options are the
    list of every option of hand + dummy."""
    state = _keep_state(seed)
    options = state.legal_actions()
    assert type(options) is KeepOptions
    pool = sorted(state.hands[state.turn] + state.dummy, key=ORDER)
    assert options == list(combinations(pool, 5)) and len(options) in (252, 462)
    i = random.Random(seed).randrange(len(options))
    by_index, by_list = state.copy(), state.copy()
    by_index.apply(state.legal_actions()[i])
    by_list.apply(list(reversed(options[i])))
    for a, b in ((by_index, by_list), (by_list, by_index)):
        assert (a.log, a.hands, a.discards, a.turn, a.phase) == (
            b.log,
            b.hands,
            b.discards,
            b.turn,
            b.phase,
        )
    assert by_index.discards[state.turn][-len(pool) + 5 :] == [
        c for c in pool if c not in options[i]
    ]


def test_an_option_of_another_pool_is_checked() -> None:
    """Only the tuple last read from the state's own options is taken unchecked: one read from
    another pool's options (a card the maker does not hold in it) is refused."""
    state = _keep_state(1)
    pool = {*state.hands[state.turn], *state.dummy}
    stranger = next(c for c in deck(24) if c not in pool)
    foreign = keep_options(tuple(sorted([stranger, *sorted(pool)[:6]], key=ORDER)))[0]
    assert stranger in foreign
    state.legal_actions()[0]
    with pytest.raises(ValueError, match="keep"):
        state.apply(foreign)
    assert state.phase == "keep"
