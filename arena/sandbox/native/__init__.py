"""Bots in C, C++, Rust, Go, JavaScript and Java: built in the sandbox, run in a world per match.

``NATIVE_RUNTIMES`` holds one :class:`arena.sandbox.runtime.Runtime` per language
(docs/languages.md).
"""

from __future__ import annotations

from arena.sandbox.native.runtimes import (
    NATIVE_RUNTIMES,
    NativeLauncher,
    NativeRuntime,
    runtime_for,
)
from arena.sandbox.native.world import NativeChannel

__all__ = ["NATIVE_RUNTIMES", "NativeRuntime", "NativeLauncher", "NativeChannel", "runtime_for"]
