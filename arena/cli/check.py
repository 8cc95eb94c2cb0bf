"""``arena check BOT``: the protocol conformance test of one bot (:func:`arena.api.check_bot`)."""

from __future__ import annotations

import sys

import click

from arena.cli.common import PathOf, reports_errors

__all__ = ["check"]


@click.command()
@click.argument("bot", type=PathOf("bot", exists=True))
@reports_errors
def check(bot: str) -> None:
    """Play BOT through scripted observations of every phase and report each protocol problem.

    BOT is a source file of any supported language (picked by its extension) or a directory
    with a manifest (bot.toml or arena.json). It runs in the sandbox, as in a match: the
    hello and ready lines, one answer per request with the right id and a legal action,
    nothing else on standard output, unknown keys ignored, an exit when standard input
    closes. Exit status 0 when clean, 1 otherwise.

    \\b
    Example:
        arena check my_bot.py
        arena check kits/c/bot.c
    """
    from arena.api import check_bot

    problems = check_bot(bot)
    for line in problems:
        click.echo(line)
    if problems:
        click.echo(f"{len(problems)} protocol problem(s)", err=True)
        sys.exit(1)
    click.echo("ok: the bot speaks protocol v1")
