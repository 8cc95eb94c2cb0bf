"""A bot of several files uploaded as one zip archive, unpacked with the limits of a bot on
disk (:mod:`arena.sandbox.artifacts`) enforced while it is read, never trusted from the
archive's own directory:

* at most :data:`~arena.sandbox.artifacts.MAX_FILES` members, and the bytes *actually*
  decompressed, over every member together, at most the bot's ``source_bytes`` (a zip bomb
  is cut at that many bytes, whatever its headers claim);
* plain relative paths only: no absolute path, drive, backslash, ``..``, empty or hidden
  part, no control characters, no two members of one name; no symbolic links (nor any
  member that is not a regular file or a folder); no encrypted member;
* the manifest (``bot.toml`` or ``arena.json``) at the top, or inside the one folder the
  archive holds.

The files are written into a new folder under the upload's private temporary folder, which
the checks then submit as a directory with a manifest.
"""

from __future__ import annotations

import io
import stat
import zipfile
from pathlib import Path, PurePosixPath
from typing import Final

from arena.errors import ArenaError
from arena.sandbox.artifacts import MANIFESTS, MAX_FILES

CHUNK: Final = 64 * 1024
MAX_PATH_CHARS: Final = 200


class TooLarge(ArenaError):
    """The archive unpacks to more than the limit."""


def member_path(info: zipfile.ZipInfo) -> PurePosixPath:
    """The member's path if it is a plain relative path, else :class:`ArenaError`."""
    name = info.filename
    parts = PurePosixPath(name).parts
    bad = (
        not name
        or len(name) > MAX_PATH_CHARS
        or name.startswith("/")
        or "\\" in name
        or ":" in name
        or any(ord(c) < 32 or c == "\x7f" for c in name)
        or any(p in ("", ".", "..") or p.startswith(".") for p in parts)
    )
    if bad:
        raise ArenaError(f"the archive holds a member with a path that is not allowed: {name!r}")
    kind = stat.S_IFMT(info.external_attr >> 16)
    if kind not in (0, stat.S_IFREG, stat.S_IFDIR):
        raise ArenaError(f"the archive's member {name!r} is not a plain file or folder")
    if info.flag_bits & 0x1:
        raise ArenaError(f"the archive's member {name!r} is encrypted")
    return PurePosixPath(name)


def unpack(content: bytes, folder: Path, stem: str, max_bytes: int) -> Path:
    """Unpack the zip archive ``content`` into ``folder/stem``; the folder holding the
    manifest (:class:`ArenaError` for an archive that breaks a rule, :class:`TooLarge` over
    ``max_bytes``)."""
    try:
        archive = zipfile.ZipFile(io.BytesIO(content))
    except (zipfile.BadZipFile, ValueError) as e:
        raise ArenaError(f"not a zip archive: {e}") from None
    with archive:
        members = archive.infolist()
        if len(members) > MAX_FILES:
            raise ArenaError(f"the archive has {len(members)} members; a bot may have {MAX_FILES}")
        paths = [member_path(m) for m in members]
        if len({str(p).rstrip("/").lower() for p in paths}) != len(paths):
            raise ArenaError("the archive holds two members of the same name")
        root = folder / stem
        root.mkdir()
        total = 0
        for info, path in zip(members, paths, strict=True):
            target = root.joinpath(*path.parts)
            if info.is_dir():
                target.mkdir(parents=True, exist_ok=True)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            total = _copy(archive, info, target, total, max_bytes)
    return _manifest_folder(root)


def _copy(
    archive: zipfile.ZipFile, info: zipfile.ZipInfo, target: Path, total: int, cap: int
) -> int:
    try:
        with archive.open(info) as src, open(target, "xb") as out:
            while chunk := src.read(CHUNK):
                total += len(chunk)
                if total > cap:
                    raise TooLarge(f"the archive unpacks to over {cap:,} bytes")
                out.write(chunk)
    except (zipfile.BadZipFile, NotImplementedError, RuntimeError, OSError) as e:
        raise ArenaError(f"cannot unpack the archive's member {info.filename!r}: {e}") from None
    return total


def _manifest_folder(root: Path) -> Path:
    if any((root / m).is_file() for m in MANIFESTS):
        return root
    inside = list(root.iterdir())
    if len(inside) == 1 and inside[0].is_dir():
        if any((inside[0] / m).is_file() for m in MANIFESTS):
            return inside[0]
    raise ArenaError(
        f"the archive has no manifest ({' or '.join(MANIFESTS)}) at its top or in its one folder"
    )
