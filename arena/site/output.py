"""Writing the site's files: atomically, and only the pages whose inputs changed.

Every page of a render comes with a *key*, a fingerprint of what it is rendered from (read
cheaply from the store: :meth:`arena.store.Store.tournament_states`,
:meth:`~arena.store.Store.bot_states` and their neighbours). The keys of the last
render are kept in the site's folder, in :data:`MANIFEST`; a page is rendered again only when
its key differs from the manifest's or its file is missing, and a file the last render wrote
that this one does not (an old replay past the bound, a renamed page) is removed. A full
render ignores the manifest. Either way the files are the same, byte for byte.

Each file is written to a temporary file in its own folder and moved over the old one with
:func:`os.replace`, so a reader (``arena serve``, a browser on the folder) sees the old page or
the new one, never half of one. The manifest is written last: a render that is killed leaves
pages that the next one renders again.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import urllib.parse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

MANIFEST = ".arena-site.json"
"""The file in the site's folder that records each page's key (not served: it starts with a
dot, and nothing links to it)."""

_FORMAT = 1


def atomic_write(path: Path, text: str) -> None:
    """Write ``text`` to ``path`` so that no reader ever sees a partial file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=".tmp-", suffix=path.suffix, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # as a plain write would leave it: a site is for reading
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


@dataclass(frozen=True)
class Page:
    """One page to have on disk: its URL path (relative, quoted), the key of its inputs, and
    how to render it (called only when it must be written)."""

    path: str
    key: str
    render: Callable[[], str]


@dataclass(frozen=True)
class Outcome:
    """What a render did: pages written, pages already up to date, old files removed."""

    written: int
    kept: int
    removed: int


def read_manifest(out: Path) -> dict[str, str]:
    """The keys of the last render into ``out`` (empty when there is none or it is unreadable:
    then every page is rendered)."""
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("format") != _FORMAT:
        return {}
    pages = data.get("pages")
    if not isinstance(pages, dict):
        return {}
    return {str(k): str(v) for k, v in pages.items()}


def _file(out: Path, rel: str, root: Path | None = None) -> Path | None:
    """The file of a page path, or None for one that would leave the folder (``root``:
    ``out`` resolved, when the caller has it)."""
    path = (out / urllib.parse.unquote(rel)).resolve()
    return path if (root or out.resolve()) in path.parents else None


def read_options(out: Path) -> dict[str, object]:
    """The options the last render into ``out`` recorded (``arena serve`` renders pages on
    request with the same ones)."""
    try:
        data = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    found = data.get("options") if isinstance(data, dict) else None
    return found if isinstance(found, dict) else {}


def apply(
    out: Path, pages: Iterable[Page], *, full: bool, options: dict[str, object] | None = None
) -> Outcome:
    """Bring ``out`` to exactly ``pages``: render the changed ones (all of them when
    ``full``), remove what the last render wrote and this one does not, write the manifest
    (with ``options``, for :func:`read_options`)."""
    old = {} if full else read_manifest(out)
    previous = read_manifest(out)  # what may be removed, even on a full render
    new: dict[str, str] = {}
    written = kept = 0
    root = out.resolve()
    for page in pages:
        new[page.path] = page.key
        target = _file(out, page.path, root)
        if target is None:
            continue
        if old.get(page.path) == page.key and target.is_file():
            kept += 1
            continue
        atomic_write(target, page.render())
        written += 1
    removed = 0
    for rel in set(previous) - set(new):
        target = _file(out, rel, root)
        if target is not None and target.is_file():
            target.unlink()
            removed += 1
    manifest = {"format": _FORMAT, "options": options or {}, "pages": dict(sorted(new.items()))}
    body = json.dumps(manifest, indent=0)
    atomic_write(out / MANIFEST, body + "\n")
    return Outcome(written, kept, removed)
