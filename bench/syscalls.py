"""The system calls match processes really make, against the sandbox's allowlist.

Run by hand, as root, with strace installed (``apt-get install strace``)::

    python bench/syscalls.py                              # bundled bots + a stdlib-import bot
    python bench/syscalls.py bots/heuristic.py mine.py    # these files (three per match)

It plays two sandboxed matches under ``strace -f``, takes every system call each match process
made after installing its seccomp filter (the bot's whole life), and prints how often each was
made, its modes when the allowlist restricts them, and every call that was refused. Use it to
find the calls a new interpreter or library needs before adding them to
``arena.sandbox.confine.ALLOW`` with a reason (docs/sandbox.md, "The system-call allowlist").
"""

from __future__ import annotations

import collections
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

from arena.sandbox.botfile import bundled_bots  # noqa: E402
from arena.sandbox.confine import ALLOW  # noqa: E402

STDLIB_BOT = """
import sys
ok = 0
for name in sorted(sys.stdlib_module_names):
    if name in {"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "test"}:
        continue
    try:
        __import__(name)
        ok += 1
    except BaseException:
        pass
print(ok, "standard-library modules imported")
import json, random, time, traceback

class Bot:
    def __init__(self):
        time.time(), time.perf_counter(), time.process_time(), time.monotonic()

    def act(self, obs):
        json.dumps(obs)
        try:
            raise ValueError("x")
        except ValueError:
            traceback.format_exc()
        return random.choice(obs["legal"])
"""

PLAY = """
import sys
from arena.sandbox import BotPool, BotSource, Limits
srcs = [BotSource.from_path(p) for p in sys.argv[1:4]]
with BotPool(Limits(decision_seconds=5.0, match_cpu_seconds=60.0)) as pool:
    for seed in range(2):
        out = pool.play_match(srcs, seed)
        print("faults:", [str(f) for f in out.faults])
"""

FILTER_LOADED = re.compile(r"^(prctl\(PR_SET_SECCOMP|seccomp\()")
CALL = re.compile(r"^(\w+)\((.*)")


def trace(files: list[str], out_dir: str) -> None:
    """Play the matches under strace, one output file per process."""
    root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
    subprocess.run(
        ["strace", "-f", "-ff", "-qq", "-o", os.path.join(out_dir, "t"), sys.executable]
        + ["-c", PLAY, *files],
        check=True,
        cwd=root,
    )


def summarize(out_dir: str) -> tuple[int, collections.Counter[str], dict[str, set[str]]]:
    """(match processes, calls by name, refused calls with their result) from the traces."""
    calls: collections.Counter[str] = collections.Counter()
    refused: dict[str, set[str]] = collections.defaultdict(set)
    children = 0
    for path in glob.glob(os.path.join(out_dir, "t.*")):
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
        starts = [i for i, line in enumerate(lines) if FILTER_LOADED.match(line)]
        if not starts or not any(line.startswith("setsid(") for line in lines):
            continue  # not a match process (the arena, a zygote, bwrap)
        children += 1
        for line in lines[starts[-1] + 1 :]:
            m = CALL.match(line)
            if m:
                calls[m.group(1)] += 1
                if "EPERM" in line:
                    refused[m.group(1)].add(line[:120])
    return children, calls, refused


def main() -> None:
    """Trace, then print one line per call."""
    if shutil.which("strace") is None:
        sys.exit("strace is not installed (apt-get install strace)")
    files = sys.argv[1:]
    with tempfile.TemporaryDirectory() as tmp:
        if not files:
            stdlib_bot = os.path.join(tmp, "stdlib_bot.py")
            with open(stdlib_bot, "w") as f:
                f.write(STDLIB_BOT)
            files = [*map(str, bundled_bots()[:2]), stdlib_bot]
        while len(files) < 3:
            files.append(files[-1])
        os.mkdir(os.path.join(tmp, "trace"))
        trace(files[:3], os.path.join(tmp, "trace"))
        children, calls, refused = summarize(os.path.join(tmp, "trace"))
    allowed = {a.name: a for a in ALLOW}
    print(f"{children} match processes of {', '.join(os.path.basename(p) for p in files[:3])}")
    for name, n in calls.most_common():
        entry = allowed.get(name)
        mark = "allowed" if entry else "NOT ON THE ALLOWLIST"
        modes = f" (only: {entry.only})" if entry and entry.only else ""
        print(f"  {name:<18} {n:>7}  {mark}{modes}")
    for name, lines in sorted(refused.items()):
        print(f"refused {name}: {len(lines)} distinct calls, e.g. {sorted(lines)[0]}")
    unused = sorted(set(allowed) - set(calls))
    print(f"on the allowlist, not made in these matches: {' '.join(unused)}")


if __name__ == "__main__":
    main()
