"""arena.cards: suits under a trump, ranking (docs/rules.md 1.4-1.5), parsing, formatting, order."""

from __future__ import annotations

import ast
import doctest
import itertools
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import arena.cards
import arena.engine
from arena.cards import (
    JOKER,
    SUITS,
    InvalidCard,
    beats,
    card_key,
    deck,
    describe_suit,
    effective_suit,
    format_cards,
    is_trump,
    left_bower,
    parse_card,
    parse_cards,
    power,
    rank_of,
    right_bower,
    same_colour,
    same_colour_suit,
    sort_cards,
    suit_of,
    trick_winner,
    trump_order,
    winning_play,
)

EFFECTIVE = [
    # (card, trump, effective suit)
    ("JD", "H", "H"),  # left bower
    ("JH", "D", "D"),
    ("JC", "S", "S"),
    ("JS", "C", "C"),
    ("JH", "H", "H"),  # right bower
    ("JD", "C", "D"),  # a jack of the other colour keeps its suit
    ("JD", "S", "D"),
    ("AD", "H", "D"),
    ("9S", "C", "S"),
    (JOKER, "C", "C"),  # the Joker is a trump of every suit
    (JOKER, "D", "D"),
    ("JD", None, "D"),  # no trump yet: printed suit
    (JOKER, None, None),
]


@pytest.mark.parametrize(
    ("card", "trump", "suit"), EFFECTIVE, ids=[f"{c}-{t}" for c, t, _ in EFFECTIVE]
)
def test_effective_suit(card: str, trump: str | None, suit: str | None) -> None:
    assert effective_suit(card, trump) == suit
    if trump is not None:
        assert is_trump(card, trump) == (suit == trump)


def expected_order(trump: str, led: str, size: int) -> list[str]:
    """docs/rules.md 1.4 written out: trumps high to low, then the led suit high to low."""
    low = ["8", "7"] if size == 32 else []
    partner = {"C": "S", "S": "C", "D": "H", "H": "D"}[trump]
    trumps = ([JOKER] if size == 25 else []) + ["J" + trump, "J" + partner]
    trumps += [r + trump for r in ["A", "K", "Q", "T", "9", *low]]
    if led == trump:
        return trumps
    plain = [r + led for r in ["A", "K", "Q", "J", "T", "9", *low] if r + led != "J" + partner]
    return trumps + plain


RANKING = [(t, led, n) for n in (24, 25, 32) for t in SUITS for led in SUITS]


@pytest.mark.parametrize(
    ("trump", "led", "size"), RANKING, ids=[f"deck{n}-trump{t}-led{ld}" for t, ld, n in RANKING]
)
def test_power_orders_every_card(trump: str, led: str, size: int) -> None:
    cards = deck(size)
    order = expected_order(trump, led, size)
    ranked = sorted(
        (c for c in cards if power(c, trump, led) > 0), key=lambda c: -power(c, trump, led)
    )
    assert ranked == order
    # Powers are distinct among cards that can win, and every other card cannot win.
    assert len({power(c, trump, led) for c in order}) == len(order)
    assert all(power(c, trump, led) == 0 for c in cards if c not in order)
    assert trump_order(trump, size) == [c for c in order if effective_suit(c, trump) == trump]


def test_bowers_and_colours() -> None:
    assert [same_colour_suit(s) for s in SUITS] == ["S", "H", "D", "C"]
    assert [same_colour(s) for s in SUITS] == ["S", "H", "D", "C"]  # the old name still works
    assert (right_bower("H"), left_bower("H")) == ("JH", "JD")
    assert (right_bower("C"), left_bower("C")) == ("JC", "JS")
    assert beats("JD", "AH", trump="H", led="H")
    assert not beats("AH", "JD", trump="H", led="H")
    assert beats("9H", "AS", trump="H", led="S")  # a low trump beats the led suit's ace
    assert not beats("AC", "9S", trump="H", led="S")  # an off-suit card cannot win
    assert beats("8S", "7S", trump="H", led="S")
    assert beats(JOKER, "JH", trump="H", led="H")


TRICKS = [
    ("trump-wins", [(0, "AS"), (1, "9H"), (2, "KS")], "H", 1),
    ("led-suit-wins", [(0, "KS"), (1, "AD"), (2, "AS")], "H", 2),
    ("left-bower-beats-ace", [(2, "AH"), (0, "JD"), (1, "KH")], "H", 0),
    ("left-bower-led-is-trump", [(1, "JD"), (2, "AD"), (0, "9H")], "H", 1),
    ("right-over-left", [(0, "JD"), (1, "JH")], "H", 1),
    ("joker-over-right", [(0, "JH"), (1, JOKER), (2, "AH")], "H", 1),
    ("joker-led-is-trump-lead", [(0, JOKER), (1, "AC"), (2, "AH")], "C", 0),
    ("first-of-equal-none", [(1, "9C"), (2, "9D"), (0, "9S")], "H", 1),
]


@pytest.mark.parametrize(
    ("plays", "trump", "winner"), [t[1:] for t in TRICKS], ids=[t[0] for t in TRICKS]
)
def test_trick_winner(plays: list[tuple[int, str]], trump: str, winner: int) -> None:
    assert trick_winner(plays, trump) == winner
    assert trick_winner([list(p) for p in plays], trump) == winner
    # winning_play, the one statement of the rule, names the card too.
    assert winning_play(plays, trump) == (winner, dict(plays)[winner])
    assert winning_play([list(p) for p in plays], trump) == (winner, dict(plays)[winner])


PARSE = [
    ("JH", "JH"),
    ("jh", "JH"),
    ("Jh", "JH"),
    ("10H", "TH"),
    ("10h", "TH"),
    ("th", "TH"),
    (" 9c ", "9C"),
    ("jk", JOKER),
    ("7s", "7S"),
]


@pytest.mark.parametrize(("text", "card"), PARSE, ids=[p[0].strip() or "blank" for p in PARSE])
def test_parse_card(text: str, card: str) -> None:
    assert parse_card(text) == card


@pytest.mark.parametrize("text", ["", "H", "1H", "JX", "XH", "11H", "JKK", "J H", "6H", "AH,"])
def test_parse_card_rejects(text: str) -> None:
    with pytest.raises(InvalidCard, match="not a card"):
        parse_card(text)


@pytest.mark.parametrize("value", [5, None, b"JH", ["JH"]], ids=["int", "none", "bytes", "list"])
def test_parse_card_rejects_non_strings(value: object) -> None:
    with pytest.raises(InvalidCard):
        parse_card(value)  # type: ignore[arg-type]
    assert issubclass(InvalidCard, ValueError)


def test_parse_and_format_round_trip() -> None:
    every = deck(32) + [JOKER]
    assert parse_cards(format_cards(every)) == every
    assert parse_cards("jh, 10d  as") == ["JH", "TD", "AS"]
    assert parse_cards(["jh", "9c"]) == ["JH", "9C"]
    assert all(parse_card(c) == c for c in every)
    assert [suit_of(c) for c in ("JH", "9C", JOKER)] == ["H", "C", None]
    assert [rank_of(c) for c in ("JH", "TC", JOKER)] == ["J", "T", JOKER]
    assert describe_suit("H") == "hearts"


def test_decks() -> None:
    assert len(deck()) == 24 and deck() == deck(24)
    assert {c[0] for c in deck(24)} == set("9TJQKA")
    assert {c[0] for c in deck(32)} == set("789TJQKA") and len(deck(32)) == 32
    assert deck(25) == deck(24) + [JOKER]
    with pytest.raises(ValueError, match="30"):
        deck(30)


def test_sort_order() -> None:
    """Suits C D H S, ranks low to high (7 8 9 T J Q K A), the Joker last."""
    assert sort_cards(["AS", JOKER, "9C", "TD", "JH", "7H", "KC", "8D"]) == [
        "9C",
        "KC",
        "8D",
        "TD",
        "7H",
        "JH",
        "AS",
        JOKER,
    ]
    assert sort_cards(deck(32) + [JOKER]) == deck(32) + [JOKER]
    keys = [card_key(c) for c in deck(32) + [JOKER]]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)


@given(
    trump=st.sampled_from(SUITS),
    plays=st.lists(st.sampled_from(deck(25)), min_size=2, max_size=3, unique=True),
)
def test_trick_winner_beats_every_other_card(trump: str, plays: list[str]) -> None:
    seats = list(enumerate(plays))
    winner = trick_winner(seats, trump)
    led = effective_suit(plays[0], trump)
    assert led is not None
    for seat, card in seats:
        if seat != winner:
            assert beats(plays[winner], card, trump, led)
            assert not beats(card, plays[winner], trump, led)


def test_cards_is_standalone() -> None:
    """Bots import arena.cards in the sandbox: it must not import the rest of arena."""
    tree = ast.parse(Path(arena.cards.__file__).read_text())
    type_only = {  # imports under `if TYPE_CHECKING:` never run (the observation's types)
        id(n)
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)
        for n in ast.walk(node)
    }
    imported = set()
    for node in ast.walk(tree):
        if id(node) in type_only:
            continue
        if isinstance(node, ast.Import):
            imported |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported.add(node.module or "")
    assert imported, "the walk found no imports at all"
    assert not [m for m in imported if m == "arena" or m.startswith("arena.")]


@pytest.mark.parametrize("module", [arena.cards, arena.engine], ids=["cards", "engine"])
def test_docstring_examples(module: object) -> None:
    result = doctest.testmod(module)  # type: ignore[arg-type]
    assert result.attempted > 0 and result.failed == 0


def test_every_pair_is_ordered_consistently() -> None:
    """beats is a strict order on the cards that can win a trick, for every trump and lead."""
    for trump, led in itertools.product(SUITS, SUITS):
        live = [c for c in deck(25) if power(c, trump, led) > 0]
        for a, b in itertools.combinations(live, 2):
            assert beats(a, b, trump, led) != beats(b, a, trump, led)
