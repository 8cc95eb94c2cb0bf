"""Owner keys: who may store a new version of a bot name.

A bot name is bound to an owner when it is first stored, and only that owner may store a new
version of it. An owner is a secret key; the database keeps only its hash (the *owner id*),
so reading a database (or a copy of it) reveals no key. The key is, in order:

* ``$ARENA_OWNER_KEY``, for a front end that submits for several authors (one key each);
* else the user's key file, ``$XDG_CONFIG_HOME/euchre-arena/owner.key`` (by default
  ``~/.config/euchre-arena/owner.key``), created with a random key on first use, mode 0600.

So on a personal ladder the one user owns every name they submit and never sees a key; on a
shared machine each account has its own key, and nobody can replace another author's bot by
declaring its name in a file. The organiser, who can write the database anyway, may store a
version over another owner with ``arena submit --force`` (the name keeps its owner). The
bundled bots' names are reserved for the bundled files
(:func:`arena.tournaments.entrants.check_owner`).
"""

from __future__ import annotations

import hashlib
import math
import os
import secrets
import stat
from pathlib import Path
from typing import Final

from arena.errors import ArenaError

KEY_ENV: Final = "ARENA_OWNER_KEY"
"""Environment variable that gives the owner key directly."""

BUNDLED: Final = "bundled"
"""The owner id of the bundled reference bots."""

MIN_KEY_CHARS: Final = 16

MIN_KEY_BITS: Final = 64
"""The least estimated entropy of a key (:func:`key_bits`)."""

NEW_KEY_HINT: Final = "python3 -c 'import secrets; print(secrets.token_hex(32))'"


def key_bits(key: str) -> float:
    """An estimate of how hard ``key`` is to guess, in bits: its length times the Shannon
    entropy of its characters. A repeated or patterned key scores low (``"a" * 16``: 0), a
    random token high (``secrets.token_hex(32)``: about 240)."""
    n = len(key)
    return 0.0 - sum(c * math.log2(c / n) for c in (key.count(ch) for ch in set(key)))


def key_problem(key: str) -> str | None:
    """Why ``key`` is no owner key (too short, or too little entropy), or None when it is."""
    if len(key) < MIN_KEY_CHARS:
        return f"at least {MIN_KEY_CHARS} characters"
    bits = key_bits(key)
    if bits < MIN_KEY_BITS:
        return f"a random token of about {MIN_KEY_BITS} bits or more, not about {bits:.0f}"
    return None


def key_path() -> Path:
    """The user's owner key file."""
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "euchre-arena" / "owner.key"


def owner_id(key: str) -> str:
    """The owner id stored for ``key``: its salted SHA-256, hex."""
    return hashlib.sha256(f"euchre-arena/owner/{key}".encode()).hexdigest()


def current_owner(*, create: bool = True) -> str | None:
    """The owner id of whoever runs this process (see the module docstring).

    With ``create=False`` a missing key file gives None instead of a new key.
    """
    key = os.environ.get(KEY_ENV)
    if key is not None:
        key = key.strip()
        problem = key_problem(key)
        if problem is not None:
            raise ArenaError(f"${KEY_ENV} must be {problem} (make one: {NEW_KEY_HINT})")
        return owner_id(key)
    path = key_path()
    if not path.exists() and not create:
        return None
    return owner_id(_read_or_create(path))


def _read_or_create(path: Path) -> str:
    if not path.exists():
        try:
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            # Written whole under a temporary name, then linked into place: a concurrent
            # first use reads either no file or a complete key, and one key wins.
            tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}")
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w", encoding="ascii") as f:
                f.write(secrets.token_hex(32) + "\n")
            try:
                os.link(tmp, path)
            except FileExistsError:
                pass
            finally:
                tmp.unlink()
        except OSError as e:
            raise ArenaError(
                f"cannot create the owner key file {path}: {e.strerror} (or set ${KEY_ENV})"
            ) from None
    try:
        mode = path.stat().st_mode
        key = path.read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError) as e:
        raise ArenaError(f"cannot read the owner key file {path}: {e}") from None
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ArenaError(f"the owner key file {path} is open to other users (chmod 600 {path})")
    problem = key_problem(key)
    if problem is not None:
        raise ArenaError(f"the owner key file {path} holds no usable key: it must be {problem}")
    return key


def describe(owner: str | None, me: str | None) -> str:
    """Who owns a name, as ``arena bots`` shows it."""
    if owner is None:
        return "-"
    if owner == BUNDLED:
        return "bundled"
    return "you" if owner == me else "another key"
