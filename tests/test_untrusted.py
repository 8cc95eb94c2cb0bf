"""arena.untrusted: the one boundary for bot-controlled text."""

from __future__ import annotations

import pytest

from arena.untrusted import (
    MAX_NAME,
    cap,
    clean,
    clean_line,
    name_problem,
    name_skeleton,
    strip_controls,
)


@pytest.mark.parametrize(
    ("raw", "kept"),
    [
        ("plain", "plain"),
        ("\x1b]0;pwned\x07title", "]0;pwnedtitle"),
        ("a\rFinal: 10 0 0", "aFinal: 10 0 0"),
        ("tab\there", "tab here"),
        ("bidi\u202eevil", "bidievil"),
        ("zero\u200bwidth", "zerowidth"),
        ("line1\nline2", "line1line2"),
    ],
    ids=["plain", "osc-title", "carriage-return", "tab", "bidi-override", "zero-width", "newline"],
)
def test_strip_controls(raw: str, kept: str) -> None:
    assert strip_controls(raw) == kept


def test_newlines_kept_on_request() -> None:
    assert strip_controls("a\nb\x1b[2J", keep_newlines=True) == "a\nb[2J"


def test_cap_marks_a_cut_and_never_exceeds_the_limit() -> None:
    assert cap("short", 10) == "short"
    cut = cap("x" * 100, 30)
    assert len(cut) == 30 and cut.endswith("[... cut]")


def test_clean_bounds_huge_input() -> None:
    out = clean("\x1b" * 10_000_000 + "tail", 50)
    assert len(out) <= 50 and "\x1b" not in out


def test_clean_line_is_one_line_and_takes_any_value() -> None:
    assert clean_line("a\nb") == "a b"
    assert clean_line({"k": 1}) == "{'k': 1}"


@pytest.mark.parametrize(
    "name", ["heuristic", "my_bot-2", "v1.5+fast", "A" * MAX_NAME], ids=lambda n: n[:12]
)
def test_good_names(name: str) -> None:
    assert name_problem(name) is None


@pytest.mark.parametrize(
    "name",
    [
        "",
        "[/oops]",
        "heuristic[i][/i]",
        "a b",
        "-dash",
        "../x",
        "héuristic",
        "A" * (MAX_NAME + 1),
        "\x1b[31mred",
        "nul\x00",
    ],
    ids=[
        "empty",
        "markup",
        "markup-lookalike",
        "space",
        "leading-dash",
        "path",
        "non-ascii",
        "too-long",
        "escape",
        "nul",
    ],
)
def test_bad_names(name: str) -> None:
    assert name_problem(name) is not None


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ("montecarlo", "montecarIo"),
        ("montecarlo", "rnontecarlo"),
        ("montecarlo", "MONTECARL0"),
        ("heuristic", "heuristic."),
        ("heuristic", "heuristic.py"),
        ("heuristic", "heur1stic"),
        ("random_bot", "random-bot"),
        ("wolf", "vvolf"),
    ],
)
def test_look_alike_names_share_a_skeleton(a: str, b: str) -> None:
    assert name_skeleton(a) == name_skeleton(b)


@pytest.mark.parametrize(
    ("a", "b"), [("greedy", "greedy2"), ("heuristic", "heuristics"), ("mo", "no")]
)
def test_different_names_have_different_skeletons(a: str, b: str) -> None:
    assert name_skeleton(a) != name_skeleton(b)
