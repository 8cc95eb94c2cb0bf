"""The clone flag: the ladder's page and a bot's page flag a version whose code is another
owner's (the same SHA-256, or the same code once comments, layout, docstrings and its name are
set aside) or whose decisions a stored collusion report flagged, with the evidence; an owner's
own bots are not flagged against each other; every bot-controlled byte is escaped.

A real SQLite file written through the store, matches played by the real engine in-process
(:func:`site_support.store_ladder`), the site rendered by :func:`arena.site.render_site`.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from site_support import soup, store_ladder, texts

from arena.site import render_site
from arena.store import Store
from arena.store.bots import code_digest, sha256_text

ORIGINAL = 'class Bot:\n    name = "ace"\n    n = 0\n\n    def act(self, o):\n        return 0\n'
NEAR = (
    '"""Mine, all mine."""\n# tidied up\nclass Bot:\n    name = "cy"   # renamed\n    n = 0\n'
    "\n\n    def act(self, o):\n\n        return 0  # same\n"
)
OWN_COPY = ORIGINAL  # the same owner's second bot: the same file, not flagged against ace
NAMES = ["ace", "bea", "cy", "o'dot", "eve", "fay"]


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    root = tmp_path_factory.mktemp("clones")
    db = root / "arena.db"
    tid = store_ladder(
        db,
        NAMES,
        sets=6,
        sources={"ace": ORIGINAL, "bea": ORIGINAL, "cy": NEAR, "fay": OWN_COPY},
        owners={
            "ace": "owner-a",
            "bea": "owner-b",
            "cy": "owner-c",
            "o'dot": "owner-d",
            "eve": "owner-e",
            "fay": "owner-a",
        },  # fmt: skip
    )
    with Store(db) as store:
        ids = {v.name: v.id for v in (store.latest_version(n) for n in NAMES) if v}
        # A collusion report of a round robin flagged o'dot and eve's decisions.
        store.replace_tournament_rows(
            tid,
            {"clone_pairs": [{"tournament_id": tid, "bot_a": ids["o'dot"], "bot_b": ids["eve"],
                              "comparable": 120, "identical": 118, "share": 118 / 120,
                              "flagged": 1}]},
        )  # fmt: skip
        # The same text under another file name: identical code, whatever the file is called.
        sha = sha256_text(store.latest_version("ace").source)  # type: ignore[union-attr]
    out = root / "site"
    render_site(db, out)
    return {"db": db, "out": out, "tid": tid, "sha": sha}


def test_the_code_digest_sets_aside_what_does_not_play() -> None:
    assert code_digest(ORIGINAL) == code_digest(NEAR) != sha256_text(ORIGINAL)
    assert code_digest(ORIGINAL) != code_digest(ORIGINAL.replace("return 0", "return 1"))
    assert code_digest(ORIGINAL) != code_digest(ORIGINAL.replace("n = 0", "n = 1"))
    # A string that plays is kept; only those given to name and author are set aside.
    assert code_digest('x = "a"\n') != code_digest('x = "b"\n')
    assert code_digest("def (:\n") == sha256_text("def (:\n")  # not Python: its plain hash


def _ladder_page(site: dict[str, object]):  # type: ignore[no-untyped-def]
    out = Path(str(site["out"]))
    page = next(p for p in out.rglob("*.html") if "ladder-field" in p.read_text())
    return page, soup(page)


def test_the_ladder_page_flags_clones_with_the_evidence(site: dict[str, object]) -> None:
    page, doc = _ladder_page(site)
    flagged = {}
    for row in doc.select("table.ladder-field tbody tr"):
        name = texts([row.select_one("a.bot")])[0]
        tag = row.select_one(".clone-flag")
        flagged[name] = tag["title"] if tag else None
    assert flagged["eve"] and flagged["o'dot"] and flagged["ace"] and flagged["bea"]
    assert flagged["cy"] and flagged["fay"]  # fay: ace's owner, but the same file as bea's
    sha = str(site["sha"])
    assert (
        f"identical code: the same file as bea v1 (SHA-256 {sha[:12]}), of another owner"
        in (flagged["ace"])
    )
    assert "near-identical code: the same code as ace v1 once comments" in flagged["cy"]
    assert "as ace v1" not in flagged["fay"]  # never against its own owner's bot
    assert "118 of 120 comparable decisions the same as eve v1 (98.3%" in flagged["o'dot"]
    items = [
        " ".join(i.replace(" ,", ",").replace(" :", ":").split())
        for i in texts(doc.select("ul.clones li"))
    ]
    assert (
        "o'dot: identical decisions, 118 of 120 comparable decisions the same as eve v1"
        in "\n".join(items)
    )
    assert not any(i.startswith(("o'dot", "eve")) and "code" in i for i in items)
    # The bot's name is escaped wherever it appears, in the title attribute as in the text.
    raw = page.read_text()
    assert "o&#39;dot" in raw and "title=\"o'dot" not in raw


def test_an_unflagged_ladder_has_no_clone_section(tmp_path: Path) -> None:
    db = tmp_path / "arena.db"
    store_ladder(db, ["ace", "bea", "cy", "dot"], sets=4)
    render_site(db, tmp_path / "site")
    page = next(p for p in (tmp_path / "site").rglob("*.html") if "ladder-field" in p.read_text())
    doc = soup(page)
    assert not doc.select(".clone-flag") and doc.select_one("#clones") is None


def test_the_bot_page_shows_its_flags(site: dict[str, object]) -> None:
    out = Path(str(site["out"]))
    pages = {}  # every page with a bot's name for its title (parsed only if it names the class)
    for path in out.rglob("*.html"):
        if "bot-name" not in path.read_text(encoding="utf-8"):
            continue
        doc = soup(path)
        title = doc.select_one("h1.bot-name")
        if title is not None:
            pages[title.get_text(strip=True)] = doc

    def lines(name: str) -> list[str]:
        found = texts(pages[name].select("ul.clones li"))
        return [" ".join(x.replace(" ,", ",").split()) for x in found]

    bea = lines("bea")
    assert bea[0].startswith("v1: identical code, the same file as ace v1 (SHA-256")
    assert pages["bea"].select_one("ul.clones li a.bot") is not None  # links the other
    assert (
        len(lines("eve")) == 1
        and "118 of 120 comparable decisions the same as o'dot v1" in (lines("eve")[0])
    )
    # fay shares ace's owner: flagged against bea and cy, never against ace.
    assert lines("fay") and not any("as ace v1" in x for x in lines("fay"))
