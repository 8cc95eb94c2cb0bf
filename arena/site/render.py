"""The Jinja2 environment of the site: templates, filters, and writing pages to disk.

Autoescape is on for every template and undefined names raise (``StrictUndefined``), so a
typo in a template fails the render instead of quietly printing nothing.
"""

from __future__ import annotations

import datetime as _dt
import functools
import re
import urllib.parse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from markupsafe import Markup, escape

if TYPE_CHECKING:
    from jinja2 import Environment

from arena.site.charts import PLACE_COLOURS, rate_colour
from arena.site.output import atomic_write

_CARD = re.compile(r"^([789TJQKA])([CDHS])$")
SUIT_SYMBOLS: Final = {"C": "\u2663", "D": "\u2666", "H": "\u2665", "S": "\u2660"}
_RANK_TEXT: Final = {"T": "10"}


def template_dir() -> Path:
    """Where the templates are: the installed ``arena.templates`` or the source tree's copy.

    The source of truth is the top-level ``templates/`` folder; setuptools ships it as the
    package ``arena.templates`` so that a non-editable install renders the same site.
    """
    tree = Path(__file__).resolve().parents[2] / "templates"
    if (tree / "base.html").is_file():
        return tree
    return Path(__file__).resolve().parents[1] / "templates"


def card(value: object) -> Markup:
    """A card as a small coloured chip; anything that is not a card is shown escaped."""
    return _card(str(value))


@functools.lru_cache(maxsize=256)
def _card(text: str) -> Markup:
    # A match page shows thousands of chips of at most 33 different cards: build each once.
    if text == "JK":
        return Markup('<span class="card joker" title="Joker">\u2605</span>')
    m = _CARD.match(text)
    if not m:
        return Markup('<span class="card">{}</span>').format(text)
    rank, suit = m.groups()
    colour = "red" if suit in "DH" else "black"
    return Markup('<span class="card {}" title="{}"><b>{}</b>{}</span>').format(
        colour, text, _RANK_TEXT.get(rank, rank), SUIT_SYMBOLS[suit]
    )


def cards(values: Any) -> Markup:
    """Several cards, space-separated."""
    return Markup(" ").join(card(v) for v in values)


def bot_name(value: object) -> Markup:
    """A bot name as an unbreakable unit (cut with an ellipsis if its box is too narrow).

    site.js gives the few names that are really cut a title with the whole name; repeating
    it in every one of the hundreds of names on a match page would cost more than the names.
    """
    return Markup('<span class="name">{}</span>').format(value)


def suit(value: object) -> Markup:
    """A suit as its coloured symbol."""
    text = str(value)
    if text not in SUIT_SYMBOLS:
        return escape(text)
    colour = "red" if text in "DH" else "black"
    return Markup(f'<span class="suit {colour}">{SUIT_SYMBOLS[text]}</span>')


def ordinal(n: object) -> str:
    """1 -> "1st", 2 -> "2nd", 3 -> "3rd"."""
    if not isinstance(n, int):
        return "\u2014"
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n if n < 20 else n % 10, 'th') }"


def number(value: object, digits: int = 0) -> str:
    """A number with ``digits`` decimals, or an em dash for a missing value."""
    if value is None or not isinstance(value, int | float):
        return "\u2014"
    return f"{value:,.{digits}f}"


def percent(value: object, digits: int = 0) -> str:
    """A fraction (0..1) as a percentage, or an em dash."""
    if value is None or not isinstance(value, int | float):
        return "\u2014"
    return f"{100 * value:.{digits}f}%"


_MONTHS: Final = ("Jan", "Feb", "Mar", "Apr", "May", "Jun",
                  "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")  # fmt: skip


def parse_time(value: object) -> _dt.datetime | None:
    """A stored timestamp (``2026-11-30T09:12:03Z``, docs/schema.md) as an aware datetime."""
    if not isinstance(value, str):
        return None
    try:
        parsed = _dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=_dt.UTC)


def friendly_time(moment: _dt.datetime) -> str:
    """``1 Dec 2026, 14:03 UTC``: English month names whatever the machine's locale."""
    d = moment.astimezone(_dt.UTC)
    return f"{d.day} {_MONTHS[d.month - 1]} {d.year}, {d:%H:%M} UTC"


def when(value: object, missing: str = "\u2014", *, relative: bool = False) -> Markup:
    """A stored timestamp as a ``<time>`` element in the friendly form.

    With ``relative``, site.js adds "(3 hours ago)" in the reader's browser, where "now" is
    the reader's: a static page cannot know when it is read, so the page itself carries only
    the absolute time. Anything that is not a timestamp is shown escaped, as is.
    """
    moment = parse_time(value)
    if moment is None:
        return escape(missing if value is None or value == "" else str(value))
    iso = moment.astimezone(_dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    return Markup('<time{} datetime="{}" title="{}">{}</time>').format(
        Markup(' class="rel"') if relative else "",
        iso,
        iso.replace("T", " ").replace("Z", " UTC"),
        friendly_time(moment),
    )


def fact(value: object) -> str:
    """A configuration value for people: booleans as yes/no, the rest as is."""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def make_env() -> Environment:
    """The site's Jinja2 environment (autoescape everywhere, strict undefined)."""
    from jinja2 import Environment, FileSystemLoader, StrictUndefined  # a read need not load it

    env = Environment(
        loader=FileSystemLoader(str(template_dir())),
        autoescape=True,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(
        card=card,
        cards=cards,
        bot_name=bot_name,
        suit=suit,
        ordinal=ordinal,
        number=number,
        percent=percent,
        fact=fact,
        when=when,
        rate_colour=rate_colour,
    )
    env.globals.update(place_colours=PLACE_COLOURS, suit_symbols=SUIT_SYMBOLS)
    return env


@functools.lru_cache(maxsize=1)
def site_env() -> Environment:
    """The one environment of the renders and of ``arena serve`` (compiling the templates
    costs more than an incremental render; Jinja reloads a template whose file changed)."""
    return make_env()


class Writer:
    """Renders templates into files under the output folder, with the right relative root."""

    def __init__(self, out_dir: Path, env: Environment, common: dict[str, Any]) -> None:
        self.out_dir = out_dir
        self.env = env
        self.common = common

    def html(self, rel_path: str, template: str, **context: Any) -> str:
        """Render ``template`` as the page at the URL ``rel_path`` (relative to the site root,
        quoted). Links inside the page are relative, so the site also works from ``file://``."""
        depth = rel_path.count("/")
        values = {**self.common, **context, "root": "../" * depth, "page_path": rel_path}
        return self.env.get_template(template).render(values)

    def page(self, rel_path: str, template: str, **context: Any) -> Path:
        """Render ``template`` at the URL ``rel_path`` into its file, atomically."""
        path = self.out_dir / urllib.parse.unquote(rel_path)
        atomic_write(path, self.html(rel_path, template, **context))
        return path

    def static(self) -> None:
        """Copy the stylesheet and script next to the pages (no CDN, nothing remote)."""
        target = self.out_dir / "static"
        target.mkdir(parents=True, exist_ok=True)
        for f in (template_dir() / "static").iterdir():
            if f.suffix in (".css", ".js", ".svg"):
                if (target / f.name).is_file() and (target / f.name).read_bytes() == f.read_bytes():
                    continue
                atomic_write(target / f.name, f.read_text(encoding="utf-8"))
