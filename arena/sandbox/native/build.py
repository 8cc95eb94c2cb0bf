"""Building a native bot in the sandbox, once per version, cached by the artifact's hash.

The compiler runs in bubblewrap with the machine's ``/usr`` read-only (the toolchain), a build
directory of its own and nothing else: no network, no home, no ``/etc`` beyond the toolchain's
configuration; a CPU limit, a memory cgroup, a size limit on every file it writes and a wall
clock. A build that fails is cached too (the same version fails the same way): its error is one
line, ``file:line: message``, from the compiler's first error, cleaned like every byte a bot
controls.
"""

from __future__ import annotations

import hashlib
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

from arena.sandbox.cgroup import make_cgroup
from arena.sandbox.layers import lease_uid
from arena.sandbox.runtime import Artifact
from arena.sandbox.world import _cache_dir, bwrap_prefix
from arena.untrusted import clean

__all__ = ["BuildLimits", "BUILD_LIMITS", "build", "cache_root", "first_error", "safe_path"]


@dataclass(frozen=True)
class BuildLimits:
    """What one build may use: CPU seconds, memory (MiB, cgroup), bytes a file may reach, wall
    seconds."""

    cpu_seconds: int = 60
    memory_mb: int = 1536
    file_bytes: int = 64 << 20
    wall_seconds: float = 180.0


BUILD_LIMITS: Final = BuildLimits()
_PATH: Final = re.compile(
    r"[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}(/[A-Za-z0-9_][A-Za-z0-9_.-]{0,63}){0,3}"
)


def safe_path(path: str) -> bool:
    """Whether an artifact's file name is plain: letters, digits, ``_ . -``, at most 4 levels."""
    return bool(_PATH.fullmatch(path)) and ".." not in path.split("/")


def cache_root() -> Path:
    """Where built artifacts are kept: ``/var/cache/euchre-arena/builds`` (or the per-user
    temporary fallback of the Python host's cache), one directory per artifact and recipe."""
    base = _cache_dir()
    if base is None:
        base = Path(tempfile.gettempdir()) / f"euchre-arena-builds-{os.geteuid()}"
        base.mkdir(mode=0o755, exist_ok=True)
    root = base / "builds"
    root.mkdir(mode=0o755, exist_ok=True)
    return root


_LOCATED: Final = re.compile(r"^(?:\./|/build/src/)?([\w.\-/]+):(\d+)(?::\d+)?:\s*(.*)$")
_RUST_AT: Final = re.compile(r"^\s*--> (?:/build/src/)?([\w.\-/]+):(\d+)(?::\d+)?")


def first_error(text: str, fallback: str) -> str:
    """One line from a compiler's output: the first error as ``file:line: message``."""
    lines = [ln.rstrip() for ln in text.splitlines() if ln.strip()]
    for i, ln in enumerate(lines):  # rustc: "error[E0425]: ..." then "  --> bot.rs:3:5"
        if ln.startswith("error") and i + 1 < len(lines):
            at = _RUST_AT.match(lines[i + 1])
            if at:
                msg = ln.split(":", 1)[1].strip() if ":" in ln else ln
                return _one(f"{at.group(1)}:{at.group(2)}: {msg}")
    for ln in lines:  # gcc, g++, go, javac
        m = _LOCATED.match(ln)
        if m and ("error" in ln.lower() or not any("error" in x.lower() for x in lines)):
            msg = re.sub(r"^(fatal )?error:\s*", "", m.group(3))
            return _one(f"{m.group(1)}:{m.group(2)}: {msg}")
    for i, ln in enumerate(lines):  # node --check: "/build/src/bot.js:3" ... "SyntaxError: ..."
        m = re.match(r"^(?:/build/src/)?([\w.\-/]+):(\d+)$", ln)
        if m:
            msg = next((x for x in lines[i + 1 :] if re.match(r"^\w*Error\b", x)), "")
            return _one(f"{m.group(1)}:{m.group(2)}: {msg or 'syntax error'}")
    for ln in lines:
        if "error" in ln.lower():
            return _one(ln)
    return _one(lines[0] if lines else fallback)


def _one(line: str) -> str:
    return clean(line.replace("/build/src/", ""))[:300]


def _build_argv(argv: list[str], env: dict[str, str]) -> list[str]:
    out = [
        *bwrap_prefix("build"),
        "--ro-bind",
        "/usr",
        "/usr",
    ]
    for name in ("lib", "lib64", "bin", "sbin"):
        if os.path.islink(f"/{name}"):
            out += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
    for etc in ("/etc/alternatives", "/etc/java-17-openjdk", "/etc/ld.so.cache"):
        if os.path.exists(etc):
            out += ["--ro-bind", etc, etc]
    out += ["--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp", "--bind", "@BUILD", "/build"]
    for key, value in {"PATH": "/usr/bin", "HOME": "/tmp", "LANG": "C.UTF-8", **env}.items():
        out += ["--setenv", key, value]
    return [*out, "--chdir", "/build/src", "--", *argv]


def _limit(limits: BuildLimits) -> Callable[[], None]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
        resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_bytes, limits.file_bytes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))

    return limit


def build(
    artifact: Artifact,
    command: Callable[[Artifact], tuple[list[str], dict[str, str]]],
    uid: bool,
    limits: BuildLimits = BUILD_LIMITS,
) -> tuple[Path | None, str | None]:
    """Build ``artifact`` (or find its build): ``(directory of outputs, None)`` or
    ``(None, one-line error)``. ``command`` gives the compiler's argv (run in ``/build/src``,
    writing to ``/build/out``) and its environment; ``uid`` runs it as a leased bot uid."""
    root = cache_root()
    argv, env = command(artifact)
    # The artifact's hash and how it is built: new flags build every version again.
    recipe = repr((artifact.sha256, argv, sorted(env.items()))).encode()
    final = root / hashlib.sha256(recipe).hexdigest()
    if (final / "error").is_file():
        return None, (final / "error").read_text(encoding="utf-8", errors="replace")
    if (final / "out").is_dir():
        return final / "out", None
    bad = [p for p, _ in artifact.files if not safe_path(p)]
    if bad:
        return None, clean(f"{bad[0][:80]}: not a plain file name (letters, digits, _ . -)")
    work = Path(tempfile.mkdtemp(prefix="build-", dir=root))
    try:
        err = _run_build(artifact, (argv, env), uid, limits, work)
        if err is None:
            _publish(work / "out")
        else:
            shutil.rmtree(work / "out", ignore_errors=True)
            (work / "error").write_text(err, encoding="utf-8")
        try:
            os.rename(work, final)
        except OSError:  # another worker built it first: theirs stands
            shutil.rmtree(work, ignore_errors=True)
        else:
            shutil.rmtree(final / "src", ignore_errors=True)
    finally:
        if work.exists():
            shutil.rmtree(work, ignore_errors=True)
    final.chmod(0o755)
    if (final / "error").is_file():
        return None, (final / "error").read_text(encoding="utf-8", errors="replace")
    return final / "out", None


def _run_build(
    artifact: Artifact,
    command: tuple[list[str], dict[str, str]],
    uid: bool,
    limits: BuildLimits,
    work: Path,
) -> str | None:
    src, out = work / "src", work / "out"
    src.mkdir()
    out.mkdir()
    for path, data in artifact.files:
        dest = src / path
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_bytes(data)
    argv, env = command
    full = [str(work) if a == "@BUILD" else a for a in _build_argv(argv, env)]
    lease = lease_uid() if uid else None
    ids: dict[str, Any] = {}
    if lease is not None:
        ids = {"user": lease.uid, "group": lease.uid, "extra_groups": []}
        for p in [work, *work.rglob("*")]:
            os.chown(p, lease.uid, lease.uid)
    cgroup = make_cgroup(limits.memory_mb - 128)
    try:

        def pre() -> None:
            if cgroup is not None:
                cgroup.enter()
            _limit(limits)()

        proc = subprocess.Popen(
            full,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            preexec_fn=pre,
            start_new_session=True,
            cwd="/",
            env={"PATH": "/usr/bin:/bin"},
            **ids,
        )
        try:
            text, _ = proc.communicate(timeout=limits.wall_seconds)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            return f"the build took over {limits.wall_seconds:g} s"
        text = text[-20000:].decode("utf-8", "replace") if text else ""
        if proc.returncode in (-signal.SIGXCPU, 128 + signal.SIGXCPU):
            return f"the build used over {limits.cpu_seconds} s of CPU"
        if proc.returncode != 0:
            return first_error(text, f"the build failed (exit status {proc.returncode})")
        if not any(out.iterdir()):
            return first_error(text, "the build made nothing")
        return None
    finally:
        if cgroup is not None:
            cgroup.remove()
        if lease is not None:
            for p in [work, *work.rglob("*")]:
                try:
                    os.chown(p, os.geteuid(), os.getegid(), follow_symlinks=False)
                except OSError:
                    pass
            lease.release()


def _publish(out: Path) -> None:
    """Outputs readable (and programs runnable) by every bot uid, writable by no one else."""
    for p in [out, *out.rglob("*")]:
        if p.is_symlink():
            p.unlink()
        elif p.is_dir() or os.access(p, os.X_OK):
            p.chmod(0o755)
        else:
            p.chmod(0o644)
