"""A memory and pids cgroup per bot host: kernel memory a bot causes is charged to that bot.

``RLIMIT_AS`` bounds a bot's own address space, not what the kernel allocates on its behalf
(dentries and inodes of its lookups, pipe buffers, page tables, the files copied into its
sandbox's tmpfs). In a memory cgroup of its own all of that is charged to the bot's host and
bounded by the cgroup's limit (the kernel reclaims the cgroup's own caches first, then kills
within it); the pids controller bounds its processes and threads whatever its uid. cgroup v2
(``memory.max``, ``pids.max``) where the machine has it with both controllers, else v1's
``memory`` controller (which counts kernel memory in ``memory.limit_in_bytes`` on current
kernels; ``memory.kmem.limit_in_bytes`` too where it still exists) and ``pids``. Each host's
cgroup is removed when the host ends; those of an arena that died are removed by the next.
"""

from __future__ import annotations

import functools
import itertools
import os
import secrets
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.sandbox.values import PROBE_UID

__all__ = ["HostCgroup", "cgroup_layer", "make_cgroup", "EXTRA_MB", "PIDS"]

ROOT: Final = Path("/sys/fs/cgroup")
NAME: Final = "euchre-arena"
EXTRA_MB: Final = 128
"""Memory a host may use beyond ``memory_mb``: the zygote, the files copied into its sandbox,
the kernel's objects for it."""
PIDS: Final = 64
"""Processes and threads of one host: bwrap, the zygote, its match child and unreaped ones."""
_counter = itertools.count()


@dataclass(frozen=True)
class _Tree:
    """Where host cgroups are made: one parent per hierarchy, and how limits are written."""

    version: int
    parents: tuple[Path, ...]


def _write(path: Path, value: str) -> None:
    with open(path, "w") as f:
        f.write(value)


def _v2() -> _Tree | None:
    if not (ROOT / "cgroup.controllers").exists():
        return None
    if not {"memory", "pids"} <= set((ROOT / "cgroup.controllers").read_text().split()):
        return None
    parent = ROOT / NAME
    parent.mkdir(exist_ok=True)
    for d in (ROOT, parent):
        enabled = set((d / "cgroup.subtree_control").read_text().split())
        if not {"memory", "pids"} <= enabled:
            _write(d / "cgroup.subtree_control", "+memory +pids")
    return _Tree(2, (parent,))


def _v1() -> _Tree | None:
    memory, pids = ROOT / "memory", ROOT / "pids"
    if not ((memory / "cgroup.procs").exists() and (pids / "cgroup.procs").exists()):
        return None
    for d in (memory, pids):
        (d / NAME).mkdir(exist_ok=True)
    return _Tree(1, (memory / NAME, pids / NAME))


def _remove_stale(tree: _Tree) -> None:
    """Remove the host cgroups of arenas that are gone (named ``h<pid>-...``)."""
    for parent in tree.parents:
        for d in parent.glob("h*-*"):
            try:
                pid = int(d.name[1:].split("-", 1)[0])
            except ValueError:
                continue
            if not Path(f"/proc/{pid}").exists():
                try:
                    d.rmdir()
                except OSError:
                    pass


@functools.cache
def _tree() -> _Tree | str:
    """The cgroup hierarchy to use here, or why none can be used (probed once per process)."""
    errors = []
    for make in (_v2, _v1):
        try:
            tree = make()
        except OSError as e:
            errors.append(f"v{2 if make is _v2 else 1}: {e.strerror or e}")
            continue
        if tree is None:
            continue
        try:
            test = HostCgroup.make(tree, 64 << 20)
            try:  # a process entering it as a bot host does: as a bot's uid, before exec
                ids: dict[str, Any] = {}
                if os.geteuid() == 0:
                    ids = {"user": PROBE_UID, "group": PROBE_UID, "extra_groups": []}
                subprocess.run(
                    [shutil.which("true") or "/bin/true"],
                    preexec_fn=test.enter,
                    check=True,
                    cwd="/",
                    timeout=10,
                    **ids,
                )
            finally:
                test.remove()
        except (OSError, subprocess.SubprocessError) as e:
            errors.append(f"v{tree.version}: {getattr(e, 'strerror', None) or e}")
            continue
        _remove_stale(tree)
        return tree
    return "; ".join(errors) or "no cgroup v2 with memory and pids, nor v1 memory and pids"


class HostCgroup:
    """The cgroups (one per hierarchy) of one bot host; :meth:`enter` runs in the new
    process before it becomes the host, :meth:`remove` once all of it has ended."""

    def __init__(self, dirs: list[Path]) -> None:
        self.dirs = dirs
        self._procs = [os.open(d / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC) for d in dirs]

    @classmethod
    def make(cls, tree: _Tree, memory: int) -> HostCgroup:
        """A new cgroup with ``memory`` bytes and :data:`PIDS` tasks at most."""
        name = f"h{os.getpid()}-{next(_counter)}-{secrets.token_hex(3)}"
        dirs = [p / name for p in tree.parents]
        made: list[Path] = []
        try:
            for d in dirs:
                d.mkdir()
                made.append(d)
            for d in dirs:
                if tree.version == 2:
                    _write(d / "memory.max", str(memory))
                    if (d / "memory.swap.max").exists():
                        _write(d / "memory.swap.max", "0")
                    _write(d / "pids.max", str(PIDS))
                elif (d / "memory.limit_in_bytes").exists():
                    _write(d / "memory.limit_in_bytes", str(memory))
                    if (d / "memory.kmem.limit_in_bytes").exists():
                        try:  # deprecated: counted in memory.limit_in_bytes anyway
                            _write(d / "memory.kmem.limit_in_bytes", str(memory))
                        except OSError:
                            pass
                else:
                    _write(d / "pids.max", str(PIDS))
            return cls(dirs)
        except OSError:
            for d in reversed(made):
                try:
                    d.rmdir()
                except OSError:
                    pass
            raise

    def enter(self) -> None:
        """Move the calling process into the cgroups (in the child, before it execs)."""
        for fd in self._procs:
            os.write(fd, b"0")

    def remove(self, patience: float = 2.0) -> bool:
        """Remove the cgroups (their processes must have ended); whether all are gone."""
        for fd in self._procs:
            try:
                os.close(fd)
            except OSError:
                pass
        self._procs = []
        deadline = time.monotonic() + patience
        left = list(self.dirs)
        while left:
            for d in list(left):
                try:
                    d.rmdir()
                    left.remove(d)
                except FileNotFoundError:
                    left.remove(d)
                except OSError:
                    pass
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.005)  # a killed task leaves its cgroup once it has been reaped
        return not left


def make_cgroup(memory_mb: int) -> HostCgroup | None:
    """A cgroup for a new bot host (``memory_mb`` + :data:`EXTRA_MB`), None where none can be
    made (``cgroup_layer`` says why)."""
    tree = _tree()
    if isinstance(tree, str):
        return None
    try:
        return HostCgroup.make(tree, (memory_mb + EXTRA_MB) << 20)
    except OSError:
        return None


def cgroup_layer(disabled: bool = False) -> tuple[bool, str]:
    """Whether each bot host gets a memory and pids cgroup here, and what it means (what it
    costs when none can be made, or ``disabled``)."""
    tree = "disabled by ARENA_SANDBOX_DISABLE" if disabled else _tree()
    if isinstance(tree, str):
        return False, (
            f"no cgroup can be made ({tree}): kernel memory a bot causes (dentries, inodes, "
            "pipes, page tables) is charged to no one and bounded by nothing but the machine; "
            "processes only by the per-bot uid's NPROC limit"
        )
    how = (
        "v2 memory.max and pids.max"
        if tree.version == 2
        else "v1 memory (kernel memory counted) and pids controllers"
    )
    return True, (
        f"each bot host in a cgroup of its own ({how}): its memory, kernel memory included, "
        f"within memory_mb + {EXTRA_MB} MiB, at most {PIDS} tasks"
    )
