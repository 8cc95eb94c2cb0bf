"""Helpers for CLI tests that run the real ``arena`` console script in a subprocess."""

from __future__ import annotations

import os
import shutil
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def arena_script() -> str:
    """The installed ``arena`` console script of the interpreter running the tests."""
    beside = Path(sys.executable).with_name("arena")
    found = str(beside) if beside.is_file() else shutil.which("arena")
    assert found, "the arena console script is not installed (pip install -e .)"
    return found


def arena(
    *args: str | Path,
    cwd: Path,
    env: dict[str, str] | None = None,
    timeout: float = 600,
    prefix: list[str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGS`` in ``cwd`` (``prefix`` goes before the command, e.g. ``unshare``)."""
    # A wide terminal, so that tables do not wrap the names the tests look for.
    full_env = {**os.environ, "COLUMNS": "200", **(env or {})}
    full_env.pop("ARENA_DB", None)
    return subprocess.run(
        [*(prefix or []), arena_script(), *map(str, args)],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def one_error_line(result: subprocess.CompletedProcess[str], code: int = 1) -> str:
    """The command failed with ``code`` and said why in one line on stderr, no traceback."""
    assert result.returncode == code, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    lines = [ln for ln in result.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, lines
    if code == 1:
        assert lines[0].startswith("Error: "), lines
    return lines[0]


def ok(result: subprocess.CompletedProcess[str]) -> str:
    """The command succeeded; its standard output."""
    assert result.returncode == 0, (result.returncode, result.stdout, result.stderr)
    assert "Traceback" not in result.stderr
    return result.stdout


def write_bot(folder: Path, filename: str, source: str) -> Path:
    """A bot file ``folder/filename`` with ``source`` (dedented)."""
    path = folder / filename
    path.write_text(textwrap.dedent(source).lstrip(), encoding="utf-8")
    return path


def stored_matches(db: Path) -> int:
    """Matches stored in ``db`` so far (0 before it exists), read without locking it."""
    # Raw and read-only: the command is still making this file, and a Store would create it.
    try:
        conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
        try:
            return int(conn.execute("SELECT COUNT(*) FROM matches").fetchone()[0])
        finally:
            conn.close()
    except sqlite3.Error:
        return 0


def assert_competition_ranks(ranks: list[int]) -> None:
    """``ranks`` (best first) is a competition ranking of a tournament's bots: 1, then each
    rank either its position or, for a tie the results cannot break, the rank before it.
    Deals come from a fresh secret in every run, so which bots tie varies from run to run."""
    assert ranks and ranks[0] == 1, ranks
    for position, rank in enumerate(ranks[1:], start=2):
        assert rank in (position, ranks[position - 2]), ranks


def arena_here(
    *args: str | Path, cwd: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``arena ARGS`` in this process (click's ``CliRunner``), as :func:`arena` runs it in
    a subprocess: in ``cwd``, with the same environment, ``Traceback`` in stderr when the
    command raised anything but ``SystemExit``; the same result object.

    The same code as the console script (``arena.cli:main``) without an interpreter's start
    and imports per command (about half a second of CPU each): for a test that runs many
    commands whose subject is their output or their one error line. Every command family
    keeps tests through the real console script (:func:`arena`).
    """
    import logging
    import traceback

    from click.testing import CliRunner

    from arena.cli import main

    full_env: dict[str, str | None] = {"COLUMNS": "200", **(env or {}), "ARENA_DB": None}
    library = logging.getLogger("arena")
    handlers = list(library.handlers)  # main() makes the library's logger speak; undone below
    before = os.getcwd()
    os.chdir(cwd)
    try:
        result = CliRunner().invoke(main, [str(a) for a in args], env=full_env, prog_name="arena")
    finally:
        os.chdir(before)
        library.handlers[:] = handlers
    stderr = result.stderr
    code = result.exit_code
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        info = result.exc_info
        assert info is not None
        stderr += "Traceback (most recent call last):\n" + "".join(
            traceback.format_exception(*info)
        )
        code = code or 1
    return subprocess.CompletedProcess(
        [arena_script(), *map(str, args)], code, result.stdout, stderr
    )
