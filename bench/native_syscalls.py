"""Trace the system calls of a native runtime's bot playing a match: how each allowlist of
arena/sandbox/native/allow.py was made and is checked.

    python bench/native_syscalls.py javascript kits/javascript/bot.js

Runs the kit in its real world (its filter on) under ``strace -f`` for one match against two
random bots, then prints every system call the bot's process made after its exec, with counts,
and those the filter refused (EPERM from seccomp shows as ``= -1 EPERM``). A runtime's list is
right when its bots play with nothing refused that they need.
"""

from __future__ import annotations

import collections
import dataclasses
import random
import re
import sys
import tempfile
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from native_driver import Seat, kit, play  # noqa: E402

from arena.sandbox.layers import choose_isolation  # noqa: E402
from arena.sandbox.native import runtime_for  # noqa: E402
from arena.sandbox.values import Limits  # noqa: E402


class _Random:
    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def act(self, obs: dict[str, Any]) -> Any:
        return self.rng.choice(obs["legal"])


def main(language: str, path: str) -> None:
    launcher = runtime_for(language).launcher(kit(language, path), Limits(), choose_isolation())
    if launcher.plan is None:
        raise SystemExit(launcher.load_error)
    out = tempfile.NamedTemporaryFile(suffix=".strace", delete=False).name
    Path(out).chmod(0o666)  # written by strace as the bot's uid
    launcher.plan = dataclasses.replace(launcher.plan, wrap=("strace", "-f", "-qq", "-o", out))
    channel = launcher.start()
    seat = Seat(channel, 0)
    try:
        play([seat, _Random(1), _Random(2)], 1)
    finally:
        channel.close()
    target = launcher.plan.argv[0]
    calls: collections.Counter[str] = collections.Counter()
    refused: collections.Counter[str] = collections.Counter()
    after_exec: set[str] = set()
    for line in Path(out).read_text().splitlines():
        m = re.match(r"(\d+)\s+(\w+)\(", line)
        if not m:
            continue
        pid, name = m.groups()
        if name == "execve" and f'execve("{target}"' in line:
            after_exec.add(pid)
            continue
        if pid in after_exec:
            calls[name] += 1
            if "EPERM" in line or "ENOSYS" in line:
                refused[f"{name}: {line.split('=')[-1].strip()}"] += 1
        cloned = re.search(r"clone\(.*= (\d+)$", line)
        if pid in after_exec and cloned:
            after_exec.add(cloned.group(1))
    print(f"{language}: {sum(calls.values())} calls, faults {seat.faults}")
    for name, n in sorted(calls.items()):
        print(f"  {name:22} {n}")
    print("refused:" if refused else "refused: none")
    for name, n in sorted(refused.items()):
        print(f"  {name} x{n}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
