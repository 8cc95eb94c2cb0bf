"""The native runtimes: C, C++, Rust, Go (static binaries), JavaScript (Node) and Java (the JVM).

Each is a :class:`arena.sandbox.runtime.Runtime`: its toolchain from Debian packages, its build
(:mod:`.build`, in the sandbox, cached by the artifact's hash), its world and its system calls
(:mod:`.world`, :mod:`.allow`). Compiled languages are linked statically, so their world holds
the launcher and the bot's one program and nothing else.
"""

from __future__ import annotations

import functools
import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from arena.sandbox.confine import Allowed
from arena.sandbox.native.allow import BASE, EVENTS, JVM, THREADS, allowlist_for, filter_bytes
from arena.sandbox.native.build import build
from arena.sandbox.native.launcher import launcher_binary
from arena.sandbox.native.world import NativeChannel, Plan, start_world
from arena.sandbox.runtime import Artifact
from arena.sandbox.world import _inside, _ldd
from arena.untrusted import clean

__all__ = ["NativeRuntime", "NativeLauncher", "NATIVE_RUNTIMES", "runtime_for"]

Command = Callable[[Artifact], tuple[list[str], dict[str, str]]]


def _sources(artifact: Artifact, *suffixes: str) -> list[str]:
    return [p for p, _ in artifact.files if p.endswith(suffixes)]


def _c(artifact: Artifact) -> tuple[list[str], dict[str, str]]:
    files = _sources(artifact, ".c")
    argv = ["gcc", "-std=gnu17", "-O2", "-static", "-pthread", "-o", "/build/out/bot", *files]
    return [*argv, "-lm"], {}


def _cpp(artifact: Artifact) -> tuple[list[str], dict[str, str]]:
    files = _sources(artifact, ".cpp", ".cc", ".cxx")
    argv = ["g++", "-std=gnu++17", "-O2", "-static", "-pthread", "-o", "/build/out/bot", *files]
    return argv, {}


def _rust(artifact: Artifact) -> tuple[list[str], dict[str, str]]:
    argv = ["rustc", "--edition", "2021", "-C", "opt-level=2", "-C", "target-feature=+crt-static"]
    return [*argv, "-o", "/build/out/bot", artifact.entry], {}


def _go(artifact: Artifact) -> tuple[list[str], dict[str, str]]:
    env = {
        "CGO_ENABLED": "0",
        "GO111MODULE": "off",
        "GOCACHE": "/tmp/gocache",
        "GOPATH": "/tmp/gopath",
    }  # no -trimpath: it would rebuild the whole standard library (about 45 s, not 2 s)
    return ["go", "build", "-o", "/build/out/bot", *_sources(artifact, ".go")], env


def _javascript(artifact: Artifact) -> tuple[list[str], dict[str, str]]:
    # Nothing to compile: check the syntax, then the files are the build.
    script = 'node --check "$1" && cp -r . /build/out/'
    return ["/bin/sh", "-c", script, "sh", artifact.entry], {}


def _java(artifact: Artifact) -> tuple[list[str], dict[str, str]]:
    files = _sources(artifact, ".java")
    # -proc:none: no annotation processor (code of the bot's) runs while compiling.
    argv = ["javac", "-encoding", "UTF-8", "-proc:none", "-J-Xmx512m", "-d", "/build/out", *files]
    return argv, {}


@functools.cache
def _node_files() -> tuple[tuple[str, str], ...]:
    node = os.path.realpath(shutil.which("node") or "/usr/bin/node")
    libs = sorted(_ldd([node]))
    return ((node, "/usr/bin/node"), *((os.path.realpath(lib), _inside(lib)) for lib in libs))


_JAVA_SKIP: Final = ("jmods", "include", "demo", "man", "legal", "src.zip", "ct.sym", "docs")


@functools.cache
def _java_files() -> tuple[tuple[str, str], ...]:
    """The JVM's files (its home without the compiler's extras) and the libraries it loads."""
    java = os.path.realpath(shutil.which("java") or "/usr/bin/java")
    home = os.path.dirname(os.path.dirname(java))
    out: dict[str, str] = {}
    for root, dirs, names in os.walk(home):
        dirs[:] = sorted(d for d in dirs if d not in _JAVA_SKIP)
        for name in sorted(names):
            if name in _JAVA_SKIP:
                continue
            path = os.path.join(root, name)
            real = os.path.realpath(path)
            if os.path.isfile(real):
                out[path] = real
    elves = [p for p in out.values() if p.endswith(".so")] + [java]
    for lib in _ldd(elves):
        out.setdefault(_inside(lib), os.path.realpath(lib))
    return tuple(sorted((real, inside) for inside, real in out.items()))


def _no_files() -> tuple[tuple[str, str], ...]:
    return ()


@dataclass(frozen=True)
class Spec:
    """One language: its tools (command, Debian package), build, run and system calls."""

    language: str
    extensions: tuple[str, ...]
    tools: tuple[tuple[str, str], ...]
    command: Command
    run: Callable[[Artifact, int], tuple[str, ...]]
    tables: tuple[tuple[Allowed, ...], ...]
    files: Callable[[], tuple[tuple[str, str], ...]] = _no_files
    proc: bool = False
    env: tuple[tuple[str, str], ...] = field(default=())


def _binary(_artifact: Artifact, _memory_mb: int) -> tuple[str, ...]:
    return ("/bot/bot",)


def _node_run(artifact: Artifact, memory_mb: int) -> tuple[str, ...]:
    heap = max(memory_mb * 3 // 4, 32)
    return ("/usr/bin/node", f"--max-old-space-size={heap}", "--v8-pool-size=1", artifact.entry)


JVM_FLAGS: Final = (
    "-XX:+UseSerialGC",
    "-XX:TieredStopAtLevel=1",
    "-XX:CICompilerCount=1",
    "-Xshare:auto",
    "-Xss8m",
    "-XX:MaxMetaspaceSize=96m",
    "-XX:ReservedCodeCacheSize=32m",
    "-XX:-UsePerfData",
    "-XX:+DisableAttachMechanism",
    "-Xlog:disable",
    "-Xlog:all=error:stderr",
)
"""The JVM's flags: one GC thread, one quick compiler, the class-data archive, no perf file."""


def _java_run(artifact: Artifact, memory_mb: int) -> tuple[str, ...]:
    heap = max(memory_mb // 2, 32)
    main = Path(artifact.entry).stem
    java = os.path.realpath(shutil.which("java") or "/usr/bin/java")  # it finds its home from here
    return (java, f"-Xmx{heap}m", f"-Xms{min(heap, 32)}m", *JVM_FLAGS, "-cp", "/bot", main)


_GCC: Final = ("gcc", "gcc")
SPECS: Final = (
    Spec("c", (".c",), (_GCC,), _c, _binary, (BASE, THREADS)),
    Spec("cpp", (".cpp", ".cc", ".cxx"), (("g++", "g++"), _GCC), _cpp, _binary, (BASE, THREADS)),
    Spec("rust", (".rs",), (("rustc", "rustc"), _GCC), _rust, _binary, (BASE, THREADS)),
    Spec("go", (".go",), (("go", "golang-go"), _GCC), _go, _binary, (BASE, THREADS, EVENTS)),
    Spec(
        "javascript",
        (".js",),
        (("node", "nodejs"), _GCC),
        _javascript,
        _node_run,
        (BASE, THREADS, EVENTS),
        _node_files,
    ),
    Spec(
        "java",
        (".java",),
        (("javac", "default-jdk-headless"), ("java", "default-jdk-headless"), _GCC),
        _java,
        _java_run,
        (BASE, THREADS, EVENTS, JVM),
        _java_files,
        proc=True,
    ),
)


class NativeLauncher:
    """Starts matches of one built artifact (:class:`arena.sandbox.runtime.Launcher`)."""

    def __init__(self, plan: Plan | None, load_error: str | None) -> None:
        self.plan = plan
        self.load_error = load_error

    def start(self) -> NativeChannel:
        """One match's world and process; raises OSError."""
        if self.plan is None:
            raise OSError(self.load_error or "the bot cannot start")
        return start_world(self.plan)

    def close(self) -> None:
        """Nothing is kept between matches (each has its world)."""


class NativeRuntime:
    """One native language (:class:`arena.sandbox.runtime.Runtime`)."""

    def __init__(self, spec: Spec) -> None:
        self.spec = spec
        self.language = spec.language
        self.extensions = spec.extensions

    def missing(self) -> str | None:
        """One line naming the first missing command and its Debian package, or None."""
        for command, package in self.spec.tools:
            if shutil.which(command) is None:
                return (
                    f"{self.language}: `{command}` not found "
                    f"(Debian package {package}: apt-get install {package})"
                )
        if shutil.which("bwrap") is None:
            return f"{self.language}: `bwrap` not found (Debian package bubblewrap)"
        return None

    def allowlist(self) -> list[tuple[str, str, str]]:
        """``(system call, modes, why)`` this runtime's bots may make."""
        return allowlist_for(self.spec.tables)

    def launcher(self, artifact: Artifact, limits: object, isolation: object) -> NativeLauncher:
        """Build ``artifact`` if needed and plan its matches; never raises for the bot's sake."""
        missing = self.missing()
        if missing is not None:
            return NativeLauncher(None, missing)
        if artifact.language != self.language:
            return NativeLauncher(None, f"not a {self.language} bot: {artifact.language}")
        if not getattr(isolation, "bwrap", False):
            return NativeLauncher(None, f"{self.language} bots need bubblewrap (arena doctor)")
        if not getattr(isolation, "cgroup", False):  # their memory has no other bound
            return NativeLauncher(None, f"{self.language} bots need a memory cgroup (arena doctor)")
        source_bytes = int(getattr(limits, "source_bytes", 1 << 20))
        if artifact.size > source_bytes:
            return NativeLauncher(None, f"the bot's files are over {source_bytes} bytes")
        try:
            out, error = build(artifact, self.spec.command, bool(getattr(isolation, "uid", 0)))
            launch = str(launcher_binary())
            bpf = filter_bytes(self.spec.tables)
        except OSError as e:
            return NativeLauncher(None, clean(f"{self.language}: {e}")[:300])
        if out is None:
            return NativeLauncher(None, error)
        memory = int(getattr(limits, "memory_mb", 1024))
        copies = tuple(
            (str(p), "/bot/" + str(p.relative_to(out)))
            for p in sorted(out.rglob("*"))
            if p.is_file()
        )
        plan = Plan(
            binds=self.spec.files(),
            copies=copies,
            argv=self.spec.run(artifact, memory),
            launcher=launch,
            filter=bpf,
            memory_mb=memory,
            cpu_seconds=int(float(getattr(limits, "match_cpu_seconds", 20.0))) + 2,
            log_bytes=int(getattr(limits, "log_bytes", 64 * 1024)),
            proc=self.spec.proc,
            uid=bool(getattr(isolation, "uid", False)),
            env=self.spec.env,
            start_seconds=float(getattr(limits, "load_seconds", 5.0)) + 10,
        )
        return NativeLauncher(plan, None)


NATIVE_RUNTIMES: Final = tuple(NativeRuntime(s) for s in SPECS)
"""Every native runtime, in the order ``arena doctor`` lists them."""


def runtime_for(language: str) -> NativeRuntime:
    """The native runtime of ``language`` (KeyError when there is none)."""
    for r in NATIVE_RUNTIMES:
        if r.language == language:
            return r
    raise KeyError(language)
