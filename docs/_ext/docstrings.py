"""A griffe extension for the documentation site: reStructuredText habits of the docstrings,
rendered as Markdown.

The docstrings are written for ``help()`` and Sphinx habits: they cite other names with roles
(``:func:`play_match```, ``:class:`~arena.rules.Rules```) and show doctest sessions
(``>>> ...``) and literal blocks after ``::``. Markdown would print the roles and the ``::``
literally and read ``obs["legal"][-1]`` in a session as a reference link. This extension turns
each role into an optional cross-reference of mkdocs-autorefs (a link when the name is
documented on the site, plain code otherwise, so ``mkdocs build --strict`` warns only about
real problems), fences each doctest session as ``pycon`` code, and ends the paragraph before
a literal block with one colon (the indented block is Markdown code as it stands). The
docstrings themselves stay as they are.
"""

from __future__ import annotations

import re
from typing import Any

import griffe

ROLE = re.compile(r":(?:class|func|meth|attr|mod|data|exc|obj):`(~?)([\w.]+)(\(\))?`")
LITERAL = re.compile(r"::$(?=\n\s*\n)", re.M)


def role_to_autoref(match: re.Match[str], module: str) -> str:
    """One role as an optional ``<autoref>``; a bare name is looked up in ``module``."""
    short, name, call = match.group(1), match.group(2), match.group(3) or ""
    shown = name.rsplit(".", 1)[-1] if short else name
    target = name if name.startswith("arena.") else f"{module}.{name}"
    return f'<autoref identifier="{target}" optional><code>{shown}{call}</code></autoref>'


def fence_doctests(text: str) -> str:
    """Wrap every doctest session (from a ``>>>`` line to the next blank line) in a fence."""
    out: list[str] = []
    inside = False
    for line in text.splitlines():
        stripped = line.lstrip()
        if not inside and stripped.startswith(">>>"):
            indent = line[: len(line) - len(stripped)]
            out.append(f"{indent}```pycon")
            inside = True
        elif inside and not stripped:
            out.append(f"{indent}```")
            inside = False
        out.append(line)
    if inside:
        out.append(f"{indent}```")
    return "\n".join(out)


class DocstringMarkdown(griffe.Extension):
    """Rewrites the roles and doctest sessions of every docstring griffe loads."""

    def on_object(self, *, obj: griffe.Object, **kwargs: Any) -> None:
        """Rewrite one object's docstring."""
        if obj.docstring is None:
            return
        module = obj.path if obj.is_module else obj.module.path
        text = ROLE.sub(lambda m: role_to_autoref(m, module), obj.docstring.value)
        text = LITERAL.sub(":", text)
        obj.docstring.value = fence_doctests(text) if ">>>" in text else text
