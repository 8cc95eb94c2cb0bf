"""A Python class as a bot, for researchers: :meth:`arena.Arena.run` with ``unsafe=True``
takes ``MyBot`` where it takes ``"my_bot.py"``.

A match plays each bot in a process of its own, so the class is written out as a bot file:
the imports at the top of its module that the class uses, the class's own source, and a
``class Bot`` that inherits from it (named after ``MyBot.name``, else the class's name). So a
class must be defined in a file (not typed at the interactive prompt), and whatever it uses
beyond those imports must be defined in the class itself (a base class other than ``object``
is not written out). Only trusted code runs this way: the bot runs without the sandbox's isolation.
"""

from __future__ import annotations

import ast
import inspect
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

from arena.errors import BadBotFile

BotClass = type
"""A class with an ``act(obs)`` method (docs/writing-a-bot.md)."""


def class_source(cls: BotClass) -> str:
    """The bot file of ``cls`` (see the module's docstring); :class:`BadBotFile` when its
    source cannot be read."""
    if not callable(getattr(cls, "act", None)):
        raise BadBotFile(f"class {cls.__qualname__} has no act(obs) method")
    try:
        body = textwrap.dedent(inspect.getsource(cls))
        module = sys.modules.get(cls.__module__)
        head = inspect.getsource(module) if module is not None else ""
    except (OSError, TypeError) as e:
        raise BadBotFile(
            f"the source of class {cls.__qualname__} cannot be read ({e}): define it in a file"
        ) from None
    used = {n.id for n in ast.walk(ast.parse(body)) if isinstance(n, ast.Name)}
    imports = [
        ast.get_source_segment(head, node) or ""
        for node in ast.parse(head).body
        if isinstance(node, ast.Import | ast.ImportFrom) and _binds(node) & used
    ]
    name = getattr(cls, "name", None)
    name = name if isinstance(name, str) and name else cls.__name__
    return "\n".join(
        [
            *imports,
            "",
            body,
            "",
            f"class Bot({cls.__name__}):",
            f"    name = {name!r}",
            "",
        ]
    )


def _binds(node: ast.Import | ast.ImportFrom) -> set[str]:
    """The names an import statement binds (``import a.b`` binds ``a``)."""
    return {a.asname or a.name.split(".")[0] for a in node.names}


def class_files(classes: Sequence[BotClass], folder: Path) -> list[Path]:
    """Each of ``classes`` written as a bot file into ``folder``, in order."""
    out = []
    for k, cls in enumerate(classes):
        path = folder / f"{k}_{cls.__name__}.py"
        path.write_text(class_source(cls), encoding="utf-8")
        out.append(path)
    return out
