"""The documentation says what the code does: checked against the engine, every link and
citation lands on something that exists in the repository, the README stays a short front door
whose bot and commands work, and the documentation site builds in strict mode."""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import io
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import click
import pytest
from cli_support import arena, ok
from scripted import WORKED_DEAL, Script
from test_engine_worked_example import STEPS

from arena import engine
from arena.engine import PHASES, Rules, play_hand, play_match
from arena.sandbox import Limits, validate_bot
from arena.sandbox.botfile import bundled, load_bot_class

REPO = Path(__file__).resolve().parents[1]
DOCS = REPO / "docs"
README = (REPO / "README.md").read_text(encoding="utf-8")
# Every page of the documentation site (docs/_ext holds the site's build extension, no page).
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_ext" not in p.parts)
RULES = (DOCS / "rules.md").read_text(encoding="utf-8")
GUIDE = (DOCS / "writing-a-bot.md").read_text(encoding="utf-8")

# The sections of docs/rules.md, which code and tests cite by number.
SECTIONS = {
    1: "Players and deck",
    2: "Dealing",
    3: "Bidding, first round",
    4: "Bidding, second round",
    5: "The maker, the defenders, going alone, the dummy",
    6: "Play",
    7: "Scoring a hand",
    8: "The end of a match",
    9: "The `Rules` fields",
    10: "Who may know what",
    11: "A worked hand",
}


def tracked_files() -> list[Path]:
    """The repository's files under version control (text files only)."""
    out = subprocess.run(
        ["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True
    ).stdout.split()
    return [REPO / f for f in out if Path(f).suffix in (".py", ".md", ".html", ".toml", ".txt")]


def section(number: int) -> str:
    """The text of one numbered section of docs/rules.md."""
    found = re.search(rf"^## {number}\. .*?(?=^## |\Z)", RULES, re.M | re.S)
    assert found, number
    return found.group(0)


def test_rules_sections_keep_their_numbers() -> None:
    headings = re.findall(r"^## (\d+)\. (.+)$", RULES, re.M)
    assert [int(n) for n, _ in headings] == list(SECTIONS)
    for (_, title), want in zip(headings, SECTIONS.values(), strict=True):
        assert title.startswith(want), title
    # Subsections cited as "1.4" and "1.5": card order and the left bower's suit.
    items = dict(re.findall(r"^(\d)\. (.+)$", section(1), re.M))
    assert items["4"].startswith("Card order depends on trump")
    assert items["5"].startswith("The left bower and the Joker are **trumps")


def test_citations_of_the_rules_land_on_a_section() -> None:
    cites = 0
    for path in tracked_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        for m in re.finditer(r"docs/rules\.md,? (?:sections? )?(\d+)(?:\.(\d+))?(?:-(\d+))?", text):
            cites += 1
            for n in filter(None, (m.group(1), m.group(3))):
                assert int(n) in SECTIONS, (path, m.group(0))
            if m.group(2):
                assert re.search(rf"^{m.group(2)}\. ", section(int(m.group(1))), re.M), m.group(0)
    assert cites >= 10


def test_no_reference_to_files_outside_the_repository() -> None:
    team_files = re.compile(r"\.\./shared|\b(" + "RULES|CONTRACT|STYLE" + r")\.md\b")
    for path in tracked_files():
        if "attacks" in path.parts or path.name == "test_docs.py":
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        assert not team_files.search(text), path


def slug(heading: str) -> str:
    """GitHub's anchor for a Markdown heading."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


@pytest.mark.parametrize(
    "doc", [*PAGES, REPO / "README.md"], ids=lambda p: str(p.relative_to(REPO))
)
def test_links_between_docs_resolve(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"^[a-z]+:", target):
            continue  # a web address
        file, _, anchor = target.partition("#")
        path = (doc.parent / file).resolve() if file else doc
        assert path.exists(), (doc.name, target)
        if anchor and path.suffix == ".md":
            anchors = {slug(h) for h in re.findall(r"^#+ (.+)$", path.read_text(), re.M)}
            assert anchor in anchors, (doc.name, target)


def test_rules_table_is_the_rules_dataclass() -> None:
    rows = re.findall(r"^\| `(\w+)` \| `([^`]+)` \| (.+?) \| [\d., ]+\|$", section(9), re.M)
    fields = {f.name: f.default for f in dataclasses.fields(Rules)}
    assert [name for name, _, _ in rows] == list(fields)
    for name, default, others in rows:
        assert ast.literal_eval(default) == fields[name], name
        if name in engine._RULE_VALUES:
            allowed = set(engine._RULE_VALUES[name]) - {fields[name]}
            shown = {ast.literal_eval(v) for v in re.findall(r"`([^`]+)`", others)}
            assert shown == allowed, name


def parse_cards(cell: str) -> list[str]:
    """Cards written as `JD 9C ...` in a table cell."""
    return " ".join(re.findall(r"`([^`]+)`", cell)).split()


def test_worked_hand_is_what_the_engine_plays() -> None:
    text = section(11)
    rows = re.findall(r"^\| (seat \d|dummy|kitty)\b[^|]*\| (.+) \|$", text, re.M)
    deal = {who: parse_cards(cards) for who, cards in rows}
    assert [deal[f"seat {s}"] for s in range(3)] == [list(h) for h in WORKED_DEAL.hands]
    assert deal["dummy"] == list(WORKED_DEAL.dummy)
    assert deal["kitty"] == list(WORKED_DEAL.kitty)
    script = Script(STEPS)
    hand = play_hand(script.bots, deal=WORKED_DEAL, dealer=0, scores=[0, 0, 0])
    tricks = re.findall(r"^\| (\d) \| (.+?) \| seat (\d) \|", text, re.M)
    assert len(tricks) == 5
    for (number, plays, winner), trick in zip(tricks, hand.tricks, strict=True):
        shown = [[int(s), c] for s, c in re.findall(r"seat (\d) `(\w+)`", plays)]
        assert shown == trick["cards"], number
        assert int(winner) == trick["winner"], number
    flat = " ".join(text.split())
    kept = re.search(r"keeps (`[^.]+`) from its ten cards, discarding (`[^.]+`) face down", flat)
    assert kept is not None
    assert sorted(parse_cards(kept.group(2))) == sorted(hand.discards[1])
    assert "it throws the `9C`" in flat and hand.discards[0] == ["9C"]
    assert hand.points == [0, 1, 0] and "the scores are 0 / 1 / 0" in flat


def observations() -> list[dict[str, Any]]:
    """Every observation of the worked hand."""
    script = Script(STEPS)
    play_hand(script.bots, deal=WORKED_DEAL, dealer=0, scores=[0, 0, 0])
    return script.seen


def guide_section(title: str) -> str:
    """The text of one ``##`` section of docs/writing-a-bot.md."""
    found = re.search(rf"^## {re.escape(title)}\n.*?(?=^## |\Z)", GUIDE, re.M | re.S)
    assert found, title
    return found.group(0)


def test_observation_table_lists_every_key() -> None:
    table = guide_section("The observation")
    documented = re.findall(r"^\| `(\w+)` \|", table, re.M)
    keys = set().union(*(o.keys() for o in observations()))
    assert sorted(documented) == sorted(keys)
    summary = play_hand(Script(STEPS).bots, deal=WORKED_DEAL, dealer=0).summary()
    entry = re.search(r"Each `history` entry.*?\n\n", table, re.S)
    assert entry is not None
    assert set(re.findall(r"`(\w+)`", entry.group(0))) - {"history", "null"} == set(summary)


def test_phase_table_lists_every_phase() -> None:
    table = guide_section("Phases and actions")
    assert sorted(re.findall(r"^\| `(\w+)` \|", table, re.M)) == sorted(PHASES)


def test_engine_example_runs_as_printed() -> None:
    (block,) = re.findall(r"```python\n(.*?)```", guide_section("The engine in Python"), re.S)

    class Last:
        """Plays the last legal action: orders up, so matches end."""

        def act(self, obs: dict[str, Any]) -> Any:
            return obs["legal"][-1]

    bot0, bot1, bot2 = Script(STEPS, then=Last().act).bots
    scope: dict[str, Any] = {"bot0": bot0, "bot1": bot1, "bot2": bot2, "bots": [Last()] * 3}
    exec(compile(block, "writing-a-bot.md", "exec"), scope)
    checked = 0
    for line in block.splitlines():
        code, sep, comment = line.partition("  # ")
        if not sep or "=" in code or not code.strip():
            continue
        if "..." in comment:
            continue
        try:
            want = ast.literal_eval(comment.split("  ")[0].split(" (")[0].strip())
        except (ValueError, SyntaxError):
            continue  # words, not a value
        got = eval(code.strip(), scope)
        assert got == want or (isinstance(got, tuple) and list(got) == list(want)), line
        checked += 1
    assert checked >= 4


# --- The README: a short front door whose bot and commands work -------------------------------


def test_readme_is_a_short_front_door() -> None:
    lines = README.splitlines()
    assert len(lines) < 150, len(lines)
    # Pictures of the real site, kept in the repository (bench/screenshots.py makes them).
    for image in ("docs/images/leaderboard.png", "docs/images/replay.png"):
        assert f"]({image})" in README
        assert (REPO / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", image
    # History and measurements live in CHANGELOG.md and docs/benchmarks.md, not here.
    assert not re.search(r"\b\d\d:\d\d UTC\b|\b20\d\d-\d\d-\d\d\b|\bissue \d+", README)
    figures = re.compile(r"/s\b|µs|\d ms\b|\d+(\.\d+)?x\b")
    speed = [p for p in README.split("\n\n") if figures.search(p)]
    assert len(speed) == 1 and "docs/benchmarks.md" in speed[0], speed
    assert len(speed[0].splitlines()) <= 2, speed  # one sentence, wrapped at most once
    # The everyday commands are those of the real command line.
    from arena.cli import main

    for command in re.findall(r"^arena (\w+)", README, re.M):
        assert command in main.list_commands(click.Context(main)), command


def readme_bot() -> type:
    """The ``Bot`` class of the README's smallest bot."""
    (block,) = re.findall(r"## The smallest bot\n.*?```python\n(.*?)```", README, re.S)
    scope: dict[str, Any] = {}
    exec(compile(block, "README.md", "exec"), scope)
    return scope["Bot"]  # type: ignore[no-any-return]


@pytest.mark.parametrize(
    "rules",
    [Rules(), Rules(deck=25), Rules(deck=32), Rules(stick_the_dealer=True)],
    ids=["24", "25", "32", "stick"],
)
def test_readme_bot_plays_every_variant(rules: Rules) -> None:
    bot = readme_bot()
    opponent = load_bot_class(bundled("random"))
    first = 0
    for seed in range(12):
        random.seed(seed)
        match = play_match([bot(), opponent(), opponent()], seed=seed, rules=rules)
        assert not match.truncated  # every answer was legal (else IllegalAction) and it bid
        first += match.placements[0] == 1
    assert first >= 6  # it does beat two random bots


@pytest.mark.slow
def test_readme_bot_passes_the_sandbox_check() -> None:
    (block,) = re.findall(r"## The smallest bot\n.*?```python\n(.*?)```", README, re.S)
    assert validate_bot(block, Limits()) is None


def test_engine_page_runs_as_printed() -> None:
    """Each ``print(...)  # value`` line of docs/engine.md prints that value."""
    text = (DOCS / "engine.md").read_text(encoding="utf-8")
    checked = 0
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, "engine.md", "exec"), {})
        wanted = [c.strip() for c in re.findall(r"^print\(.*?\)\s+# (.+)$", block, re.M)]
        assert out.getvalue().splitlines() == wanted
        checked += len(wanted)
    assert checked >= 3


# --- The documentation site ------------------------------------------------------------------


def test_help_points_to_the_docs(tmp_path: Path) -> None:
    out = " ".join(ok(arena("--help", cwd=tmp_path)).split())
    found = re.search(r"Documentation: docs/ in the repository \(([^)]+)\)", out)
    assert found, out
    for page in found.group(1).split(", "):
        assert (DOCS / f"{page}.md").is_file() or (DOCS / page / "index.md").is_file(), page


def test_every_page_is_in_the_navigation() -> None:
    config = (REPO / "mkdocs.yml").read_text(encoding="utf-8")
    listed = set(re.findall(r"^\s+- (?:[^:\n]+: )?(\S+\.md)$", config, re.M))
    assert listed == {str(p.relative_to(DOCS)) for p in PAGES}


def test_architecture_draws_the_layers_the_layout_test_enforces() -> None:
    # The layer table of docs/architecture.md, lowest first, is tests/test_layout.py's LAYERS.
    from test_layout import LAYERS

    page = (DOCS / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| (\d+) \| [^|]+ \| ([^|]+) \|", page, re.M)
    drawn = [tuple(m.rstrip("/") for m in re.findall(r"`([^`]+)`", mods)) for _, mods in rows]
    assert [int(n) for n, _ in rows] == list(range(len(LAYERS)))
    assert [set(d) for d in drawn] == [set(u) - {"__init__"} for u in LAYERS]


def test_every_benchmark_is_on_the_benchmarks_page() -> None:
    page = (DOCS / "benchmarks.md").read_text(encoding="utf-8")
    helpers = {"screenshots.py", "coverage_model.py", "ladder_model.py", "ladder_real_db.py"}
    helpers |= {"ladder_db.py"}  # bench/ladder_information.py --db's reading of a database
    helpers |= {"unguarded_preload.py"}  # bench/cluster.py's preload, not a script
    helpers |= {"procstat.py"}  # bench/cold.py's and bench/sandbox.py's CPU of processes
    bot_files = {"montecarlo_v1.py", "oracle.py"}  # bots: the bar to beat, the ceiling
    for script in sorted((REPO / "bench").glob("*.py")):
        if script.name in helpers:
            continue
        if script.name in bot_files:  # named on the page as bench/strength.py's arguments
            assert f"bench/{script.name}" in page, script.name
            continue
        assert f"python bench/{script.name}" in page, script.name


@pytest.mark.slow
def test_docs_site_builds_in_strict_mode(tmp_path: Path) -> None:
    """``mkdocs build --strict``, as CI runs it: no broken link, missing page or docstring
    griffe cannot read; the API pages show the docstrings; nothing is loaded from the web."""
    out = tmp_path / "site-docs"
    build = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=REPO,
        capture_output=True,
        text=True,
        env={"NO_MKDOCS_2_WARNING": "1", "PATH": "/usr/bin:/bin"},
    )
    assert build.returncode == 0, build.stderr
    assert "WARNING" not in build.stderr, build.stderr
    for page in PAGES:
        assert (out / page.relative_to(DOCS)).with_suffix(".html").is_file(), page
    api = (out / "api" / "engine.html").read_text(encoding="utf-8")
    assert "play_match" in api and "deal_for" in api
    assert 'href="#arena.engine.deal_for"' in api  # a Sphinx role became a link
    for html in out.rglob("*.html"):
        text = html.read_text(encoding="utf-8")
        assert not re.search(r":(func|class|meth|mod):`", text), html
        assert not re.search(r"<(link|script)[^>]+(href|src)=\"https?:", text), html
