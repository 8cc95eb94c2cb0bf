"""The listing commands of ``arena``: ``bots``, ``tournaments``, ``matches`` and ``faults``, and
those that show one stored match: ``replay`` and ``logs``.

Thin, like the rest of the command line: the queries are the store's
(:meth:`arena.store.Store.match_listing`, :meth:`~arena.store.Store.fault_listing`, ...),
what is shown (every bot-controlled string escaped) is
:mod:`arena.views.terminal`.
"""

from __future__ import annotations

from dataclasses import asdict

import click

from arena.cli.common import db_option, limit_option, reports_errors, show, wide_option


@click.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of versions.")
@wide_option
@reports_errors
def bots(db_path: str, as_json: bool, wide: bool) -> None:
    """List the submitted bots and their versions, with who owns each name.

    Owner: "you" (your owner key), "another key", "bundled" or "-" (stored without an owner key).

    \b
    Example:
        arena bots
    """
    import json

    from arena.api import Arena
    from arena.tournaments.owners import current_owner, describe
    from arena.views.terminal import bots_table

    with Arena(db_path, create=False) as arena:
        rows = arena.bots()
    me = current_owner(create=False)
    if as_json:
        shown = [
            {**asdict(r), "owner": None if r.owner is None else describe(r.owner, me)} for r in rows
        ]
        click.echo(json.dumps(shown, indent=2))
        return
    if not rows:
        click.echo(f"No bots in {db_path} yet (arena submit FILE)")
        return
    show([bots_table(rows, me, wide=wide)])


@click.command()
@db_option
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of tournaments.")
@click.option(
    "--export",
    "export_tid",
    metavar="TOURNAMENT",
    default=None,
    help="Print the deal secret of TOURNAMENT (id or prefix) as a secret file for "
    "`arena run --secret-file`. Keep it private until the tournament has finished.",
)
@wide_option
@reports_errors
def tournaments(db_path: str, as_json: bool, export_tid: str | None, wide: bool) -> None:
    """List the tournaments in the database, the most recently run first.

    Each shows its deal commitment (SHA-256 of its deal secret) from the start, and its
    secret once it has finished (--json), so anyone can check its deals (`arena verify`).

    \b
    Example:
        arena tournaments
        arena standings --tournament 8b92a1
        (umask 077; arena tournaments --export 8b92a1 > secret.json)
    """
    import json

    from arena.api import Arena
    from arena.views.terminal import tournament_record, tournaments_table

    with Arena(db_path, create=False) as arena:
        if export_tid is not None:
            secret, revealed = arena.export_secret(export_tid)
            click.echo(secret.to_json())
            if not revealed:
                click.echo(
                    "Note: this secret is not revealed yet; whoever reads it knows every deal "
                    f"of the unfinished tournaments of seed {secret.seed}.",
                    err=True,
                )
            return
        rows = arena.tournaments()
        ladders = [r.tournament.id for r in rows if r.tournament.is_ladder]
        epochs = {lid: [e.to_dict() for e in arena.epochs(lid)] for lid in ladders}
        fields = {lid: arena.ladder_field(lid) for lid in ladders}
    if as_json:
        docs = [tournament_record(r) for r in rows]
        for doc in docs:  # a ladder's deal secrets: one per epoch
            if doc["id"] in epochs:
                doc["epochs"] = epochs[doc["id"]]
        click.echo(json.dumps(docs, indent=2))
        return
    if not rows:
        click.echo(f"No tournaments in {db_path} yet (arena run)")
        return
    show([tournaments_table(rows, wide=wide, fields=fields)])


@click.command()
@db_option
@click.argument("bot", required=False)
@click.option(
    "--tournament", "tid", help="Tournament id (or prefix)  [default: the latest round robin]"
)
@click.option("--match", "match_id", help="Only this match (id or unique prefix).")
@click.option("--full", is_flag=True, help="Print each fault's whole message (its traceback).")
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of faults.")
@limit_option
@wide_option
@reports_errors
def faults(
    db_path: str,
    bot: str | None,
    tid: str | None,
    match_id: str | None,
    full: bool,
    as_json: bool,
    limit: int,
    wide: bool,
) -> None:
    """List the faults of a tournament (or of one BOT): where in the bot's file and why.

    Each fault: its match (for arena replay), round and seating, the bot and seat, the kind
    (crash, timeout, illegal, memory, load, protocol, ...), the decision it happened at, and
    the bot's own file and line with the error.

    \b
    Example:
        arena faults my_bot
        arena faults my_bot --full --limit 1
        arena faults --match 3f2a9c --json
    """
    import json

    from arena.api import Arena
    from arena.views import terminal as views

    with Arena(db_path, create=False) as arena:
        found = arena.faults(bot=bot, tid=tid, match=match_id, limit=limit or None)
    records, total = views.fault_records(found[0]), found[1]
    if as_json:
        click.echo(json.dumps(records, indent=2))
    elif not records:
        click.echo("No faults" + (f" of {bot}" if bot else "") + " there.")
    elif full:
        show(views.fault_details(records))
    else:
        show([views.faults_table(records, total, wide=wide)])


@click.command()
@db_option
@click.option("--bot", help="Only the matches this bot played in.")
@click.option(
    "--tournament", "tid", help="Tournament id (or prefix)  [default: the latest round robin]"
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list of matches.")
@limit_option
@wide_option
@reports_errors
def matches(
    db_path: str, bot: str | None, tid: str | None, as_json: bool, limit: int, wide: bool
) -> None:
    """List the stored matches of a tournament (or those of one bot), to pick one to replay.

    Each: its id, round and seating (of 6), and per seat the bot, its score and place.

    \b
    Example:
        arena matches --bot my_bot
        arena replay 3f2a9c
    """
    import json

    from arena.api import Arena
    from arena.views import terminal as views

    with Arena(db_path, create=False) as arena:
        found, total = arena.matches(bot=bot, tid=tid, limit=limit or None)
        t = arena.tournament(tid).id
    records = views.match_records(found)
    if as_json:
        click.echo(json.dumps(records, indent=2))
    elif not records:
        click.echo("No matches" + (f" of {bot}" if bot else "") + f" in tournament {t}.")
    else:
        show([views.matches_table(records, total, wide=wide)])


@click.command()
@db_option
@click.argument("match_id")
@reports_errors
def replay(db_path: str, match_id: str) -> None:
    """Print a stored match hand by hand (MATCH_ID: the id or a unique prefix).

    \b
    Example:
        arena replay 3f2a9c
    """
    from arena.api import Arena
    from arena.views.terminal import replay_text

    with Arena(db_path, create=False) as arena:
        click.echo(replay_text(arena.store, match_id))


@click.command()
@db_option
@click.argument("match_id")
@reports_errors
def logs(db_path: str, match_id: str) -> None:
    """Print what each bot printed (stdout and stderr) in a stored match (MATCH_ID: the id or
    a unique prefix, from arena matches or arena faults).

    Printing is fine for debugging a bot: the sandbox keeps the first 64 KiB of each bot's
    output per match. Every line is shown behind a bar, control characters stripped.

    \b
    Example:
        arena logs 3f2a9c
    """
    from arena.api import Arena
    from arena.views.terminal import match_log_lines

    with Arena(db_path, create=False) as arena:
        show(match_log_lines(arena.store, match_id))


COMMANDS = (bots, tournaments, matches, faults, replay, logs)
"""The commands of this module, added to ``arena`` by :mod:`arena.cli`."""
