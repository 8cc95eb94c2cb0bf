"""Authors and their tokens (``arena authors``, ``arena web``).

An author's token is 32 random bytes (``secrets.token_urlsafe(32)``), shown once when the
author is added and never stored: the database keeps its owner id
(:func:`arena.tournaments.owners.owner_id`, a salted SHA-256). A token *is* the owner key of
the author's bots, so ``ARENA_OWNER_KEY=<token> arena submit`` and an upload through
``arena web`` own the same bot names.

A fast hash is right here: a token has 256 bits of entropy, so nobody can search the hashes
of a stolen database for it, and a slow password hash (bcrypt, Argon2) would only slow every
request. A token is found by its hash (an index lookup), never by comparing secrets.
"""

from __future__ import annotations

import re
import secrets
from typing import Final

from arena.errors import ArenaError
from arena.store import Author, Store
from arena.tournaments.owners import owner_id

AUTHOR_NAME: Final = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,39}")
"""An author's name: a letter or digit, then letters, digits, ``_``, ``.``, ``-``; at most 40."""

TOKEN_BYTES: Final = 32
"""Random bytes in a token."""

MAX_TOKEN_CHARS: Final = 200
"""A presented token longer than this is refused before it is hashed."""


def check_author_name(name: str) -> str:
    """``name`` if it is a valid author name, else :class:`ArenaError`."""
    if not AUTHOR_NAME.fullmatch(name):
        raise ArenaError(
            f"author name {name!r} must be 1 to 40 letters, digits, '_', '.' or '-', "
            "starting with a letter or digit"
        )
    return name


def new_token() -> str:
    """A fresh token: 32 random bytes, URL-safe base64 (43 characters)."""
    return secrets.token_urlsafe(TOKEN_BYTES)


def add_author(store: Store, name: str) -> tuple[Author, str]:
    """Store author ``name`` with a new token; the author and the token (its only copy)."""
    token = new_token()
    return store.add_author(check_author_name(name), owner_id(token)), token


def rotate_author(store: Store, name: str) -> tuple[Author, str]:
    """Give author ``name`` a new token: the old one stops working (logins, uploads, its
    sessions and ``ARENA_OWNER_KEY``) and the author's bots move to the new one. The author
    and the token (its only copy)."""
    token = new_token()
    return store.rotate_author(name, owner_id(token)), token


def author_for_token(store: Store, token: str) -> Author | None:
    """The author whose token is ``token``, if it is valid (not revoked); else None."""
    token = token.strip()
    if not token or len(token) > MAX_TOKEN_CHARS:
        return None
    author = store.author_by_owner(owner_id(token))
    return None if author is None or author.revoked else author


def owner_of(store: Store, name: str) -> str:
    """The owner id author ``name`` stores bots with (:class:`ArenaError`: revoked)."""
    author = store.author(name)
    if author.revoked:
        raise ArenaError(f"author {name!r} is revoked: they may store no more bots")
    return author.owner


def may_upload(store: Store, author: Author, name: str) -> bool:
    """Whether ``author`` may store a version of bot ``name``: a new name, or one of theirs.
    (The bundled bots' reserved names are refused by the submit's own checks.)"""
    owner = store.bot_owners().get(name, author.owner)
    return owner == author.owner
