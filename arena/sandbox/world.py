"""A bot's world: the files a bot host sees, and no directory of the machine.

Inside bubblewrap every directory a bot can name is on the sandbox's own tmpfs, made for its
host and gone with it: the interpreter, its shared libraries and the seccomp binding are bound
in file by file (a file has no names to look up in), its extension modules and the arena's
files are copied in, and the standard library is one zip file of compiled modules (built once
per machine and interpreter by :func:`host_files`). A lookup of a missing name in a disk
directory leaves a *negative dentry* in the machine-wide name cache, which a later lookup finds
about three times faster: in a host directory that would carry a bot's cards to its next match
(tests/attacks/dentmem.py). tmpfs keeps no negative dentry and all of its positive ones from
the moment its files are made, so no lookup leaves anything behind (docs/sandbox.md).
"""

from __future__ import annotations

import functools
import glob
import hashlib
import json
import os
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Final

__all__ = [
    "HOST_PYTHON",
    "HostFiles",
    "host_files",
    "warm_page_cache",
    "bwrap_argv",
    "bwrap_prefix",
    "compiled_lib",
    "seccomp_programs",
]

HOST_PYTHON: Final = "/usr/bin/python3"
"""The host interpreter: world-readable, so a bot uid can run it (a pyenv under /root is not)."""
DIST_PACKAGES: Final = "/usr/lib/python3/dist-packages"


@dataclass(frozen=True)
class HostFiles:
    """The files a bot host needs, and nothing else of the machine.

    ``binds`` are ``(outside, inside)`` files bound read-only into bubblewrap's tmpfs (the
    interpreter, the shared libraries it loads, the seccomp binding, the standard library's
    zip); ``copies`` are files copied into it (the extension modules, and the one file the
    interpreter looks for to find its prefix); ``read_paths`` the interpreter's files by
    their real paths, for Landlock when bubblewrap is off. ``private`` says whether every
    directory is the sandbox's own (False: the standard library's directory is bound from
    the host, because its zip could not be made); ``detail`` says which it is.
    """

    binds: tuple[tuple[str, str], ...]
    copies: tuple[tuple[str, str], ...]
    read_paths: tuple[str, ...]
    detail: str
    private: bool = False


_BUILD_ZIP = """
def build_zip(stdlib, cache):
    import hashlib, importlib.util, zipfile
    from importlib._bootstrap_external import _code_to_timestamp_pyc
    skip = {"site-packages", "dist-packages", "test", "tests", "idle_test", "__pycache__",
            "lib-dynload", "idlelib", "tkinter", "turtledemo", "ensurepip", "lib2to3"}
    sources = []
    for root, dirs, files in os.walk(stdlib):
        dirs[:] = sorted(d for d in dirs if d not in skip and not d.startswith("config-"))
        sources += [os.path.join(root, f) for f in sorted(files) if f.endswith(".py")]
    key = hashlib.sha256(repr((sys.version, stdlib)).encode())
    for src in sources:
        st = os.stat(src)
        key.update(repr((src, st.st_mtime_ns, st.st_size)).encode())
    dest = os.path.join(cache, "stdlib-" + key.hexdigest()[:24] + ".zip")
    if os.path.exists(dest):
        return dest
    tmp = "%s.%d.tmp" % (dest, os.getpid())
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        for src in sources:
            st = os.stat(src)
            data = None
            try:  # the distribution's own compiled file, when it matches the source
                with open(importlib.util.cache_from_source(src), "rb") as f:
                    data = f.read()
                head = [int.from_bytes(data[i:i + 4], "little") for i in (4, 8, 12)]
                if data[:4] != importlib.util.MAGIC_NUMBER or head != [
                        0, int(st.st_mtime) & 0xFFFFFFFF, st.st_size & 0xFFFFFFFF]:
                    data = None
            except OSError:
                pass
            if data is None:
                try:
                    with open(src, "rb") as f:
                        code = compile(f.read(), src, "exec", dont_inherit=True)
                except (SyntaxError, ValueError):
                    continue
                data = bytes(_code_to_timestamp_pyc(code, int(st.st_mtime), st.st_size))
            info = zipfile.ZipInfo(os.path.relpath(src, stdlib)[:-3] + ".pyc")
            info.external_attr = 0o644 << 16
            z.writestr(info, data)
    os.chmod(tmp, 0o644)
    os.replace(tmp, dest)
    for old in os.listdir(cache):
        if old.startswith("stdlib-") and old != os.path.basename(dest):
            try:
                os.unlink(os.path.join(cache, old))
            except OSError:
                pass
    return dest
"""

_LIST_FILES = f"""
import glob, json, os, sys, sysconfig
sys.path.append({DIST_PACKAGES!r})
out = {{"exe": os.path.realpath(sys.executable), "stdlib": sysconfig.get_path("stdlib"),
       "platstdlib": sysconfig.get_path("platstdlib"), "extra": [],
       "zip": [p for p in sys.path if p.endswith(".zip")][:1]}}
import _ctypes
out["dynload"] = os.path.dirname(_ctypes.__file__)
for name in ("seccomp", "pyseccomp"):
    try:
        out["extra"].append(__import__(name).__file__)
    except ImportError:
        pass
{_BUILD_ZIP}
if len(sys.argv) > 1 and out["zip"]:  # the cache directory for the standard library's zip
    try:
        out["archive"] = build_zip(out["stdlib"], sys.argv[1])
    except Exception as e:
        out["archive_error"] = "the standard library's zip could not be built: %r" % e
print(json.dumps(out))
"""


_TEST_MODULES: Final = ("_test", "_xxtestfuzz", "_ctypes_test", "xxlimited", "_xxsub")
"""CPython's own test extension modules (``_testcapi`` pokes at memory): not for bots."""


def _cache_dir() -> Path | None:
    """A directory only this user can write and every bot uid can read (for bubblewrap)."""
    for path in (
        Path("/var/cache/euchre-arena"),
        Path(tempfile.gettempdir()) / f"euchre-arena-{os.geteuid()}",
    ):
        try:
            path.mkdir(mode=0o755, exist_ok=True)
            st = path.stat()
            if st.st_uid == os.geteuid() and not st.st_mode & 0o022:
                path.chmod(0o755)
                return path
        except OSError:
            continue
    return None


def _ldd(paths: list[str]) -> set[str]:
    """Every shared library (and the dynamic loader) that the ELF files ``paths`` load."""
    p = subprocess.run(["ldd", *paths], capture_output=True, text=True, timeout=30, check=False)
    libs = set()
    for line in p.stdout.splitlines():
        words = line.split()
        if "=>" in words and len(words) > words.index("=>") + 1:
            target = words[words.index("=>") + 1]
            if target.startswith("/"):
                libs.add(target)
        elif words and words[0].startswith("/") and not words[0].endswith(":"):
            libs.add(words[0])  # the loader: "/lib64/ld-linux-x86-64.so.2 (0x...)"
    return libs


def _inside(path: str) -> str:
    """Where a host file sits inside: its canonical directory under /usr (/lib and /lib64 are
    symlinks to usr/lib*), under the name the loader asks for."""
    return os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))


@functools.cache
def host_files() -> HostFiles:
    """List the host interpreter's files and find (or build, the first time on a machine, in
    about half a second) the standard library's zip of compiled modules; once per process,
    about 60 ms. The zip is built by the host interpreter itself, so its compiled files match
    it, and kept in a cache keyed by the interpreter's version and every source file's time
    and size. The list itself (a run of the interpreter and of ``ldd``, about 0.1-0.5 s) is
    kept beside the zip and used while none of its files, their directories, the loader's
    cache and this module have changed (:func:`_saved_list`).

    Falls back to all of ``/usr`` (and says so) when the list cannot be made, e.g. without
    ``ldd``, and to binding the standard library's directory when its zip cannot be made.
    """
    cache = _cache_dir()
    saved = cache / f"host-files-{_list_key()}.json" if cache else None
    files = _saved_list(saved)
    if files is None:
        files = _list_host_files(cache)
        if saved is not None and files.private:
            _save_list(saved, files)
    return files


def _list_key() -> str:
    """What the list depends on besides files: this module's code, the interpreter's path
    and the loader's search path."""
    key = [Path(__file__).read_bytes(), HOST_PYTHON.encode(), os.environ.get("LD_LIBRARY_PATH")]
    return hashlib.sha256(repr(key).encode()).hexdigest()[:20]


def _stamp(files: HostFiles) -> list[list[object]]:
    """Identity of every file of the list, the directories they are in (a package upgrade
    renames files into them; not the cache's own) and the loader's cache: inode, size,
    modification and change times (``None`` for a missing path)."""
    paths = {"/etc/ld.so.cache", HOST_PYTHON, DIST_PACKAGES}
    for path in [*(o for o, _ in files.binds), *(o for o, _ in files.copies), *files.read_paths]:
        paths |= {path, os.path.dirname(path)}
    paths.discard(str(_cache_dir()))
    return _stat_rows(paths)


def _stat_rows(paths: set[str]) -> list[list[object]]:
    out: list[list[object]] = []
    for path in sorted(paths):
        try:
            st = os.stat(path)
            out.append([path, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns])
        except OSError:
            out.append([path, None])
    return out


def kept_probe(
    name: str, paths: list[str], probe: Callable[[], tuple[bool, str]], cache: Path | None = None
) -> tuple[bool, str]:
    """``probe()``'s ``(ok, detail)``, kept on disk (in ``cache``, by default beside the
    standard library's zip) while ``paths``, the host interpreter, the loader's cache and this
    module are unchanged: a probe that starts the host interpreter costs 50-80 ms a process.
    Only a success is kept; a failure is probed again every time."""
    cache = cache or _cache_dir()
    if cache is None:
        return probe()
    saved = cache / f"probe-{name}-{_list_key()}.json"
    stamp = _stat_rows({*paths, HOST_PYTHON, "/etc/ld.so.cache"})
    try:
        data = json.loads(saved.read_text())
        if data["stamp"] == stamp and isinstance(data["detail"], str):
            return True, data["detail"]
    except (OSError, ValueError, KeyError, TypeError):
        pass
    ok, detail = probe()
    if ok:
        tmp = saved.with_name(f".{saved.name}.{os.getpid()}")
        try:
            tmp.write_text(json.dumps({"stamp": stamp, "detail": detail}))
            tmp.replace(saved)
        except OSError:
            tmp.unlink(missing_ok=True)
    return ok, detail


def _saved_list(saved: Path | None) -> HostFiles | None:
    """The list kept in ``saved`` if every file it names is as it was when it was made."""
    if saved is None:
        return None
    try:
        data = json.loads(saved.read_text())
        files = HostFiles(
            tuple(map(tuple, data["binds"])),
            tuple(map(tuple, data["copies"])),
            tuple(data["read_paths"]),
            data["detail"],
            data["private"],
        )
    except (OSError, ValueError, KeyError, TypeError):
        return None
    return files if data.get("stamp") == _stamp(files) else None


def _save_list(saved: Path, files: HostFiles) -> None:
    """Keep ``files`` in ``saved`` (written whole, then renamed into place)."""
    data = {**files.__dict__, "stamp": _stamp(files)}
    tmp = saved.with_name(f".{saved.name}.{os.getpid()}")
    try:
        tmp.write_text(json.dumps(data))
        tmp.replace(saved)
    except OSError:
        tmp.unlink(missing_ok=True)


def _list_host_files(cache: Path | None) -> HostFiles:
    """:func:`host_files` without the saved list."""
    try:
        p = subprocess.run(
            [HOST_PYTHON, "-s", "-S", "-c", _LIST_FILES, *([str(cache)] if cache else [])],
            capture_output=True,
            text=True,
            timeout=300,  # building the zip: about half a second, once per machine
            check=True,
            cwd="/",
        )
        found = json.loads(p.stdout)
        dirs = sorted({found["stdlib"], found["platstdlib"]})
        dynload = [
            f
            for f in sorted(glob.glob(os.path.join(found["dynload"], "*.so")))
            if not os.path.basename(f).startswith(_TEST_MODULES)
        ]
        elves = [found["exe"], *dynload, *(f for f in found["extra"] if f.endswith(".so"))]
        libs = _ldd(elves)
        if not libs:
            raise OSError("ldd found no libraries")
    except (OSError, ValueError, KeyError, subprocess.SubprocessError) as e:
        return HostFiles((("/usr", "/usr"),), (), ("/usr",), f"all of /usr ({e})")
    binds = [(found["exe"], HOST_PYTHON)]
    binds += [(os.path.realpath(f), _inside(f)) for f in sorted(libs) + sorted(found["extra"])]
    binds = [b for b in binds if not any(b[1].startswith(d + "/") for d in dirs)]
    reals = sorted({*(os.path.realpath(outside) for outside, _ in binds), *dirs})
    stdlib = found["stdlib"]
    archive = found.get("archive")
    if not archive:
        why = found.get("archive_error") or (
            "no private cache directory in /var/cache or the temporary directory"
            if cache is None
            else "the interpreter reads no zip of its standard library"
        )
        detail = f"only the interpreter's files, its standard library's directory shared ({why})"
        return HostFiles(tuple([*((d, d) for d in dirs), *binds]), (), tuple(reals), detail)
    # The file the interpreter looks for to find its prefix, and the extension modules
    # (loaded by the dynamic loader, so files of their own), copied into the sandbox.
    copies = [(os.path.join(stdlib, "os.py"), os.path.join(stdlib, "os.py"))]
    copies += [(f, f) for f in dynload]
    binds.append((archive, found["zip"][0]))
    detail = (
        f"no host directory: {len(binds)} files bound and {len(copies)} copied into the "
        "sandbox's own tmpfs, the standard library as one zip"
    )
    return HostFiles(tuple(binds), tuple(copies), tuple([*reals, archive]), detail, True)


_COMPILE = """
import importlib.util, os, py_compile, sys
dest, lib = sys.argv[1], sys.argv[2]
for rel in sys.argv[3:]:
    cfile = os.path.join(dest, os.path.relpath(importlib.util.cache_from_source(
        os.path.join(lib, rel)), lib))
    py_compile.compile(os.path.join(lib, rel), cfile=cfile, dfile=rel, doraise=True,
                       invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
"""


def compiled_lib(lib: Path) -> list[tuple[str, bytes]]:
    """The arena's staged modules under ``lib`` compiled by the host interpreter, as
    ``(path under lib, bytes)`` of ``__pycache__`` files to stage beside them: a host then
    imports them without compiling them again (about a third of a host's start). Unchecked-hash
    files, made once per machine for these sources and this interpreter and kept in the cache
    directory; empty (the host compiles them itself) where they cannot be made."""
    cache = _cache_dir()
    sources = sorted(str(p.relative_to(lib)) for p in lib.rglob("*.py"))
    if cache is None or not sources:
        return []
    key = hashlib.sha256(repr(_stat_rows({HOST_PYTHON})).encode())
    for rel in sources:
        key.update(rel.encode() + b"\0" + (lib / rel).read_bytes() + b"\0")
    done = cache / f"pyc-{key.hexdigest()[:24]}"
    if not done.is_dir():
        tmp = Path(tempfile.mkdtemp(prefix=".pyc-", dir=cache))
        try:
            subprocess.run(
                [HOST_PYTHON, "-s", "-S", "-c", _COMPILE, str(tmp), str(lib), *sources],
                capture_output=True,
                timeout=60,
                check=True,
                cwd="/",
            )
            for d in [tmp, *(p for p in tmp.rglob("*") if p.is_dir())]:
                d.chmod(0o755)
            tmp.rename(done)
        except (OSError, subprocess.SubprocessError):
            shutil.rmtree(tmp, ignore_errors=True)
            if not done.is_dir():
                return []
    return [(str(p.relative_to(done)), p.read_bytes()) for p in sorted(done.rglob("*.pyc"))]


_EXPORT_BPF = """
import os, sys
dest, lib = sys.argv[1], sys.argv[2]
sys.path.insert(0, lib)
import confine
tables = {"match": [confine.ALLOW], "zygote": [confine.ALLOW, confine.ZYGOTE_ALLOW]}
for name in tables:
    bpf = confine.export_bpf(*tables[name])
    if bpf:
        with open(os.path.join(dest, name + ".bpf"), "wb") as f:
            f.write(bpf)
"""


def seccomp_programs(lib: Path) -> list[tuple[str, bytes]]:
    """The seccomp programs of the staged ``confine.py`` under ``lib`` (a match process's and
    its zygote's), as ``(name, bytes)`` of files to stage beside it: a host then loads them
    without importing libseccomp and building them again. Exported by the host interpreter's
    own binding, once per machine for this ``confine.py`` and this binding, and kept in the
    cache directory; empty (each host builds its own) where they cannot be made."""
    cache = _cache_dir()
    if cache is None or not (lib / "confine.py").is_file():
        return []
    bindings = {
        os.path.join(DIST_PACKAGES, f)
        for f in (os.listdir(DIST_PACKAGES) if os.path.isdir(DIST_PACKAGES) else [])
        if f.startswith(("seccomp", "pyseccomp"))
    }
    key = hashlib.sha256(repr(_stat_rows({HOST_PYTHON, *bindings})).encode())
    key.update((lib / "confine.py").read_bytes())
    done = cache / f"seccomp-{key.hexdigest()[:24]}"
    if not done.is_dir():
        tmp = Path(tempfile.mkdtemp(prefix=".seccomp-", dir=cache))
        try:
            subprocess.run(
                [HOST_PYTHON, "-s", "-S", "-c", _EXPORT_BPF, str(tmp), str(lib)],
                capture_output=True,
                timeout=60,
                check=True,
                cwd="/",
            )
            if not list(tmp.glob("*.bpf")):
                raise OSError("no seccomp binding: nothing exported")
            tmp.chmod(0o755)
            tmp.rename(done)
        except (OSError, subprocess.SubprocessError):
            shutil.rmtree(tmp, ignore_errors=True)
            if not done.is_dir():
                return []
    return [(p.name, p.read_bytes()) for p in sorted(done.glob("*.bpf"))]


@functools.cache
def warm_page_cache() -> float:
    """Read every host file once, so all their pages are in the page cache; seconds taken.

    A bot cannot evict a page (fadvise, madvise PAGEOUT and memory pressure are out of its
    reach), so with every page resident, which pages another bot read leaves no trace.
    """
    start = time.monotonic()
    for top in host_files().read_paths:
        walk = [(top, [], [""])] if os.path.isfile(top) else os.walk(top)
        for root, _dirs, names in walk:
            for name in names:
                try:
                    with open(os.path.join(root, name) if name else root, "rb") as f:
                        while f.read(1 << 20):
                            pass
                except OSError:
                    continue
    return time.monotonic() - start


def bwrap_prefix(hostname: str) -> list[str]:
    """How every bubblewrap command of the arena starts (bot hosts, native bots' worlds, their
    builds): namespaces of every kind, none for the process to make inside, bound to its
    parent's life, a session of its own, no capability, a fixed uid, gid and ``hostname``, and
    an empty environment."""
    return [
        "bwrap", "--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent",
        "--new-session", "--cap-drop", "ALL", "--uid", "1000", "--gid", "1000",
        "--hostname", hostname, "--clearenv",
    ]  # fmt: skip


def bwrap_argv(copies: list[tuple[int, str]], python: str, script: str, ctrl_fd: int) -> list[str]:
    """The bubblewrap command for a host: only the host files and ``copies`` exist.

    ``copies`` are ``(fd, inside)``: open files copied into the sandbox's tmpfs (the arena's
    files and the bot's, with :meth:`HostFiles.copies`; pass their descriptors on). Everything
    is read-only; the arena's and the bot's files appear at fixed inside paths, so a bot
    learns nothing of the arena's file system, not even the staging directory's name; the
    uid, gid and host name inside are fixed, so they tell nothing either.
    """
    argv = [
        *bwrap_prefix("arena"),
        # Only to give each match child a pid namespace of its own (host.py, _fork_match):
        # the zygote holds it within the sandbox's namespaces, each child drops it first.
        "--cap-add",
        "CAP_SYS_ADMIN",
        "--setenv",
        "PATH",
        "/usr/bin",
        "--setenv",
        "PYTHONHASHSEED",
        "0",
    ]
    for outside, inside in host_files().binds:
        argv += ["--ro-bind", outside, inside]
    for name in ("lib", "lib64", "bin"):
        if os.path.islink(f"/{name}"):
            argv += ["--symlink", os.readlink(f"/{name}"), f"/{name}"]
    argv += ["--dev", "/dev", "--perms", "0755", "--dir", "/bot"]  # the bot's tmpfs goes here
    for fd, inside in copies:
        argv += ["--perms", "0555", "--file", str(fd), inside]
    # Without these the sandbox's root tmpfs and /dev/shm are writable: RAM outside RLIMIT_AS.
    argv += ["--remount-ro", "/", "--remount-ro", "/dev", "--chdir", "/", "--"]
    return [*argv, python, "-s", "-S", "-B", script, str(ctrl_fd)]


def open_copies(extra: list[tuple[str, str]]) -> list[tuple[int, str]]:
    """Open every file to copy into a sandbox (the host files' and ``extra``), for
    :func:`bwrap_argv`; the caller closes the descriptors once bubblewrap has started."""
    out: list[tuple[int, str]] = []
    try:
        for outside, inside in [*host_files().copies, *extra]:
            out.append((os.open(outside, os.O_RDONLY | os.O_CLOEXEC), inside))
    except OSError:
        for fd, _ in out:
            os.close(fd)
        raise
    return out
