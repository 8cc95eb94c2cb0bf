"""``arena play``: a human plays a match in the terminal against bots, on the game state.

The human's seat is shown exactly its observation (:meth:`arena.game.GameState.observation`)
and what everybody does in public; the bots are trusted files run in-process (bundled ones by
name, or the user's own files). Answers are read from standard input a line at a time, so a
match can be scripted: ``printf '1\\n2\\n' | arena play --seed 3``. End of input stops the
match with one line (exit 1); Ctrl-C too (exit 130).
"""

from __future__ import annotations

import contextlib
import io
import random
import secrets
import sys
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TextIO, cast

import click

from arena.cards import JOKER, describe_suit, format_cards, is_trump, left_bower, plays
from arena.cli.common import db_option
from arena.errors import ArenaError

if TYPE_CHECKING:  # imported where used, so that `arena --help` does not load the engine
    from arena.engine import MatchResult
    from arena.game import GameState
    from arena.rules import HandResult, Observation, Rules

__all__ = ["DEFAULT_OPPONENTS", "EndOfInput", "Table", "play_at_terminal", "play"]

DEFAULT_OPPONENTS = ("heuristic", "montecarlo")
"""The bundled bots a human plays against when none are named."""


class EndOfInput(ArenaError):
    """Standard input ended before the match did."""


class Table:
    """The terminal: who sits where, where text goes and where answers come from."""

    def __init__(self, names: Sequence[str], human: int, read: TextIO, write: TextIO) -> None:
        self.names = list(names)
        self.human = human
        self.read = read
        self.write = write

    def say(self, text: str = "") -> None:
        """Write a line."""
        self.write.write(text + "\n")
        self.write.flush()

    def ask(
        self, prompt: str, count: int, numbers: int = 1, words: Sequence[Sequence[str]] = ()
    ) -> list[int]:
        """Read ``numbers`` distinct choices from 1 to ``count`` (asks again until it gets them):
        each a number, or one of the names of that choice (``words[i]``, any letter case:
        ``pickup``, ``JS``, ``H`` or ``hearts``).

        Returns them 0-based. Raises :class:`EndOfInput` at the end of the input.
        """
        named = {w.lower(): i for i, names in enumerate(words) for w in names}
        while True:
            self.write.write(prompt)
            self.write.flush()
            line = self.read.readline()
            if not line:
                raise EndOfInput("end of input: the match was left unfinished")
            if not self.read.isatty():  # a scripted answer: show it, as a terminal would
                self.write.write(line if line.endswith("\n") else line + "\n")
            typed = line.replace(",", " ").split()
            try:
                picked = [named[w.lower()] if w.lower() in named else int(w) - 1 for w in typed]
            except ValueError:
                picked = []
            if len(picked) == numbers == len(set(picked)) and all(0 <= p < count for p in picked):
                return picked
            what = "a number" if numbers == 1 else f"{numbers} different numbers"
            also = " (or the choice itself, as shown)" if words else ""
            self.say(f"Type {what} from 1 to {count}{also}.")

    def scores(self, scores: Sequence[int]) -> str:
        """``You 3, heuristic 5, montecarlo 0``."""
        return ", ".join(f"{self.names[s]} {scores[s]}" for s in range(3))


def _names(files: Sequence[Path], human: int) -> list[str]:
    """ "You" and the bots' names, as every command shows them (``Bot.name``, else the file
    stem; with their seats when two bots share a name)."""
    from arena.cli.demo import bot_label

    stems = iter(bot_label(f) for f in files)
    names = ["You" if seat == human else next(stems) for seat in range(3)]
    return [
        f"{name} (seat {seat})" if seat != human and names.count(name) > 1 else name
        for seat, name in enumerate(names)
    ]


_SAID: dict[str, dict[str, tuple[str, str]]] = {
    "bid1": {"order": ("order up", "orders up"), "pass": ("pass", "passes")},
    "pickup": {"pickup": ("pick up", "picks up"), "decline": ("leave", "leaves")},
    "alone": {
        "alone": ("go alone", "goes alone"),
        "pass": ("do not go alone", "does not go alone"),
    },
}


def _public(table: Table, seat: int, phase: str, action: Any, upcard: str) -> str:
    """What everybody sees of a decision (a bot's discards and keep stay hidden)."""
    mine = seat == table.human

    def said(you: str, other: str) -> str:
        return f"{table.names[seat]} {you if mine else other}"

    if phase in _SAID:
        text = said(*_SAID[phase][action])
        return f"{text} the {upcard}" if phase == "pickup" or action == "order" else text
    if phase in ("bid2", "joker_trump"):
        if action == "pass":
            return said("pass", "passes")
        return said("name", "names") + f" {describe_suit(action)}"
    if phase == "discard":
        return said(f"discard {action}", "discards a card face down")
    if phase == "keep":
        return said(f"take the dummy and keep {format_cards(action)}", "takes the dummy")
    return said("play", "plays") + f" {action}"


def _status(table: Table, obs: Observation) -> None:
    """The human's view before a decision: hand, up-card, bids, tricks so far."""
    names = table.names
    hand = format_cards(obs["hand"]) if obs["hand"] else "(face down: name trump blind)"
    table.say(f"  Your hand: {hand}")
    trump = obs["trump"]
    if trump is None:
        table.say(f"  Up-card: {obs['upcard']}")
    else:
        maker = names[cast(int, obs["maker"])]  # trump is named: a maker is
        alone = ", ".join(f"{names[s]} alone" for s in obs["alone"])
        table.say(f"  Trump: {describe_suit(trump)} (maker {maker}{'; ' + alone if alone else ''})")
    if obs["bids"] and trump is None:
        bids = ", ".join(f"{names[b['seat']]} {b['action']}" for b in obs["bids"])
        table.say(f"  Bids: {bids}")
    for i, t in enumerate(obs["tricks"], 1):
        cards = ", ".join(f"{names[s]} {c}" for s, c in plays(t["cards"]))
        table.say(f"  Trick {i}: {cards} -> {names[t['winner']]}")
    if obs["trick"]:
        table.say("  On the table: " + ", ".join(f"{names[s]} {c}" for s, c in plays(obs["trick"])))


def _choose(table: Table, state: GameState) -> Any:
    """Show the human's view and read a choice among its legal actions."""
    from arena.engine import QUESTIONS

    obs = state.observation(table.human)
    _status(table, obs)
    legal = obs["legal"]
    if obs["phase"] == "keep":
        pool = [*obs["hand"], *obs["dummy"]]
        trump = cast(str, obs["trump"])  # named before the keep
        table.say(f"  The dummy: {format_cards(obs['dummy'])}. Keep which 5 of your cards?")
        table.say(
            "  "
            + "  ".join(
                f"{i}) {c}{'*' if is_trump(c, trump) else ''}" for i, c in enumerate(pool, 1)
            )
            + f"   (* trump: {describe_suit(trump)}, the left bower {left_bower(trump)} included)"
        )
        picked = table.ask(f"Keep (5 numbers, 1-{len(pool)}): ", len(pool), 5, [[c] for c in pool])
        return [pool[i] for i in picked]
    legal = cast("list[str]", legal)  # words or cards: only the keep offers lists
    shown = [describe_suit(a) if a in ("C", "D", "H", "S") else a for a in legal]
    question = obs["phase"]
    if question == "alone" and obs["maker"] != table.human:
        question = "defend_alone"
    if len(legal) == 1:  # nothing to decide: said, not asked
        table.say(f"  {QUESTIONS[question]}  Only one choice: {shown[0]}.")
        return legal[0]
    table.say(f"  {QUESTIONS[question]}  " + "  ".join(f"{i}) {a}" for i, a in enumerate(shown, 1)))
    words = [[str(a), s] for a, s in zip(legal, shown, strict=True)]
    return legal[table.ask(f"Your choice (1-{len(legal)}): ", len(legal), 1, words)[0]]


def _play_hand(table: Table, bots: Sequence[Any], state: GameState) -> HandResult:
    from arena.engine import IllegalAction

    names = table.names
    up = state.upcard
    joker = " (the Joker: the dealer names trump)" if up == JOKER else ""
    table.say()
    table.say(f"Hand {state.hand_number + 1}: dealer {names[state.dealer]}; up-card {up}{joker}")
    while (seat := state.turn) is not None:
        phase = state.phase
        if seat == table.human:
            action = _choose(table, state)
        else:
            try:
                with _labelled(table.say, names[seat]):
                    action = bots[seat].act(state.observation(seat))
            except Exception as e:  # the user's own bot file: one line with its file and line
                raise ArenaError(f"{names[seat]} failed: {_where(e)}") from None
        tricks = len(state.tricks)
        try:
            state.apply(action)
        except IllegalAction as e:  # a bot's fault (the human only picks legal actions)
            raise ArenaError(f"{names[seat]} answered illegally: {e}") from None
        if phase != "play" or seat == table.human:
            shown = action if phase != "keep" else state.log[-1][2]
            table.say(_public(table, seat, phase, shown, up))
        sitter = state.sitting_out
        if phase == "alone" and sitter is not None and action == "alone":
            table.say(f"{names[sitter]} sit{'' if sitter == table.human else 's'} out")
        if len(state.tricks) > tricks:
            _, cards, winner = state.tricks[-1]
            played = ", ".join(f"{names[s]} {c}" for s, c in cards)
            table.say(f"  Trick {len(state.tricks)}: {played} -> {names[winner]}")
    return state.result()


@contextlib.contextmanager
def _labelled(say: Callable[[str], object], name: str) -> Iterator[None]:
    """What a bot prints while it decides, each line shown after it, labelled with its name
    and a bar (``  | heuristic: thinking``) and stripped of control characters, so that it
    never passes for the table's own lines."""
    from arena.untrusted import clean_line

    caught = io.StringIO()
    try:
        with contextlib.redirect_stdout(caught), contextlib.redirect_stderr(caught):
            yield
    finally:
        for line in caught.getvalue().splitlines()[:PRINTED_LINES]:
            say(f"  | {name}: {clean_line(line, 200)}")
        if caught.getvalue().count("\n") > PRINTED_LINES:
            say(f"  | {name}: ... (more lines not shown)")


PRINTED_LINES: Final = 20
"""At most this many lines a bot prints at one decision are shown."""


def _where(e: BaseException) -> str:
    """``my_bot.py, line 5: KeyError: 'x'``: a bot's exception, where in its own file."""
    import traceback

    from arena.sandbox.faults import summary

    trace = "".join(traceback.format_exception(e))
    frames = [ln for ln in trace.splitlines() if ln.strip().startswith("File ")]
    ours = [ln for ln in frames if "/arena/" not in ln]  # the bot's frames, not the referee's
    where = summary(f"{type(e).__name__}: {e}\n" + "\n".join(ours or frames))
    return where


def _summary(table: Table, hand: HandResult, scores: Sequence[int]) -> str:
    names = table.names
    if hand.maker is None:
        return f"Everybody passed: nobody scores. Scores: {table.scores(scores)}."
    made = hand.tricks_won[hand.maker]
    gained = ", ".join(f"{names[s]} +{p}" for s, p in enumerate(hand.points) if p) or "nobody"
    return (
        f"{names[hand.maker]} took {made} trick{'s' if made != 1 else ''} as maker: {gained}. "
        f"Scores: {table.scores(scores)}."
    )


def play_at_terminal(
    table: Table, bots: Sequence[Any], seed: int, rules: Rules | None = None
) -> MatchResult:
    """Play one match, the human at ``table.human``; the score is shown after each hand."""
    from arena.engine import Match
    from arena.rules import DEFAULT_RULES

    match = Match(seed, rules or DEFAULT_RULES)
    while (state := match.next_hand()) is not None:
        hand = _play_hand(table, bots, state)
        match.record(hand)
        table.say(_summary(table, hand, match.scores))
    result = match.result()
    winners = " and ".join(table.names[s] for s in result.winners) or "nobody (stopped)"
    table.say()
    table.say(f"Match over: {winners} won. Your place: {result.placements[table.human]} of 3.")
    return result


def _bots(
    opponents: Sequence[str], human: int, seed: int, db_path: str
) -> tuple[list[Any], list[Path]]:
    """One bot per seat (``None`` for the human), each built as the sandbox would seed it."""
    from arena.cli.demo import bot_file, bot_label
    from arena.sandbox.botfile import load_bot_class
    from arena.sandbox.values import bot_random_seed

    files = [bot_file(spec, db_path) for spec in opponents]
    classes = []
    for f in files:  # what a bot prints as it loads is labelled too
        with _labelled(click.echo, bot_label(f)):
            classes.append(load_bot_class(f))
    made = iter(zip(files, classes, strict=True))
    bots: list[Any] = []
    for seat in range(3):
        random.seed(bot_random_seed(seed, seat))  # as the arena seeds every bot
        if seat == human:
            bots.append(None)
            continue
        f, cls = next(made)
        with _labelled(click.echo, bot_label(f)):
            bots.append(cls())
    return bots, files


@click.command("play")
@click.option("--seat", type=click.IntRange(0, 2), default=0, show_default=True, help="Your seat.")
@click.option("--seed", type=int, default=None, help="Match seed  [default: a new one, shown]")
@click.argument("opponents", nargs=-1, metavar="[OPPONENT OPPONENT]")
@db_option
def play(seat: int, seed: int | None, opponents: tuple[str, ...], db_path: str) -> None:
    """Play a match yourself against two bots, in this terminal.

    OPPONENTS are two bot files, bundled bot names or your own submitted bots' names (default:
    heuristic montecarlo); they run in this process, as trusted code, so another author's
    submitted bot is refused. Each decision shows your hand, the up-card, the bids and
    the tricks so far, and numbers your legal actions: type a number and Enter (for the keep,
    the numbers of 5 cards). Answers are read line by line from standard input, so a match can
    be scripted. End of input stops with exit code 1, Ctrl-C with 130.

    \b
    Example:
        arena play
        arena play --seat 2 --seed 7 random bots/my_bot.py
        printf '1\\n2\\n' | arena play --seed 3
    """
    if len(opponents) not in (0, 2):
        raise click.UsageError(f"name two opponents (or none), not {len(opponents)}")
    if seed is None:
        seed = secrets.randbelow(10**6)
    try:
        bots, files = _bots(opponents or DEFAULT_OPPONENTS, seat, seed, db_path)
        table = Table(_names(files, seat), seat, sys.stdin, sys.stdout)
        table.say(f"Match seed {seed} (play it again with --seed {seed}); you are seat {seat}.")
        play_at_terminal(table, bots, seed)
    except ArenaError as e:
        click.echo(f"\nError: {e}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("\nInterrupted: the match was left unfinished.", err=True)
        sys.exit(130)
