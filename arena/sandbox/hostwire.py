"""The bot host's wire: JSON lines and the control socket's messages, with the interpreter's
C parts only (staged beside ``host.py``, imported as ``hostwire``; the system Python, standard
library only).

The ``json`` package would import ``re`` (and ``enum``, ``functools``, ``collections``), and
``socket`` ``enum`` and ``selectors``: a few milliseconds of CPU at every host's start, a good
part of a cold host's cost. ``json``'s own C scanner and encoder give the same results (a bot
that imports ``json`` gets the package as ever), and ``_socket`` the same socket.
"""

from __future__ import annotations

import _socket
import os

TYPE_CHECKING = False  # not ``typing``'s, for the same reason (mypy reads it the same way)
if TYPE_CHECKING:
    from typing import Any

MAX_LINE = 1 << 20
"""The longest line either side reads."""

try:
    import _json
except ImportError:  # a Python without the accelerator
    _json = None  # type: ignore[assignment]


class _Decoding:
    """What the C scanner reads from its decoder: ``json.JSONDecoder()``'s defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = {
        "-Infinity": float("-inf"),
        "Infinity": float("inf"),
        "NaN": float("nan"),
    }.__getitem__


_scan = _json.make_scanner(_Decoding()) if _json is not None else None  # type: ignore[arg-type]


def _not_serializable(o: object) -> Any:
    raise TypeError(f"Object of type {o.__class__.__name__} is not JSON serializable")


def json_loads(text: bytes | str) -> Any:
    """``json.loads`` of one document (the arena's messages)."""
    if _json is None:
        import json

        return json.loads(text)
    s = text.decode("utf-8") if isinstance(text, (bytes, bytearray)) else text
    start = len(s) - len(s.lstrip())
    try:
        obj, end = _scan(s, start)
    except StopIteration as e:
        raise ValueError(f"not JSON (at {e.value})") from None
    if s[end:].strip():
        raise ValueError(f"not JSON: extra data at {end}")
    return obj


def json_compact(obj: object) -> str:
    return json_dumps(obj, True)


def json_dumps(obj: object, compact: bool = False) -> str:
    """``json.dumps(obj)``; ``compact``: ``JSONEncoder(allow_nan=False, separators=(",", ":"))``
    (a bot's answer: NaN and infinities refused, as the arena's parser would)."""
    sep = (",", ":") if compact else (", ", ": ")
    if _json is None:
        import json

        return json.dumps(obj, allow_nan=not compact, separators=sep)
    encode = _json.make_encoder(
        {}, _not_serializable, _json.encode_basestring_ascii, None, sep[1], sep[0], False, False,
        not compact,
    )  # fmt: skip
    return "".join(encode(obj, 0))


def recv_fds(sock: _socket.socket, bufsize: int, maxfds: int) -> tuple[bytes, list[int]]:
    """A message and the descriptors that came with it (``socket.recv_fds`` without the
    ``socket`` module, whose import costs a host a few milliseconds at every start)."""
    msg, anc, _flags, _addr = sock.recvmsg(bufsize, _socket.CMSG_LEN(maxfds * 4))
    fds: list[int] = []
    for level, kind, data in anc:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            fds += memoryview(data[: len(data) - len(data) % 4]).cast("i").tolist()
    return msg, fds


def message(readline: Any) -> Any:
    """One JSON line from the arena (trusted); None at the end (stdin closed)."""
    line = readline(MAX_LINE + 1)
    if not line.endswith(b"\n"):
        return None
    return json_loads(line)


def write_all(fd: int, data: bytes) -> None:
    while data:
        n = os.write(fd, data)
        data = data[n:]
