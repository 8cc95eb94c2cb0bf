"""CPU time of processes from ``/proc`` (shared by the bench scripts; imports nothing of the
arena, so a script measuring another checkout's code can use it)."""

from __future__ import annotations

import os


def cpu_ticks(pids: list[int]) -> int:
    """Clock ticks of CPU (user + system) used so far by the live processes ``pids``."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, IndexError, ValueError):
            continue
    return total


def cpu_seconds(pids: list[int]) -> float:
    """CPU seconds (user + system) used so far by the live processes ``pids``."""
    return cpu_ticks(pids) / os.sysconf("SC_CLK_TCK")
