"""The launcher every native bot starts under: pid 1 of its world, C source built once per machine.

It installs the runtime's seccomp filter on the bot with a listener for ``execve``, lets the
world's first exec (the bot's program) through and closes the listener, so no later exec can
succeed; it sets the bot's limits (CPU backstop, log size, descriptors, no core) and reaps.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
from pathlib import Path
from typing import Final

from arena.sandbox.world import _cache_dir

__all__ = ["SOURCE", "launcher_binary"]

SOURCE: Final = r"""/* The native bot launcher (euchre-arena): pid 1 of a bot's bubblewrap world.
 *
 * usage: launch BPF_FD STATUS_FD CPU_SECONDS FSIZE_BYTES NOFILE NPROC PROGRAM [ARGS...]
 * (NPROC 0: no process limit, where the uid is shared)
 *
 * Reads a seccomp program (struct sock_filter array) from BPF_FD and forks the bot, which sets
 * its limits, installs the filter (execve and execveat go to a listener we copy with
 * pidfd_getfd: SECCOMP_RET_USER_NOTIF) and execs PROGRAM.
 * We let exactly that first exec through, then close the listener: every later
 * exec fails with ENOSYS, by the kernel, whatever the bot does. We write "exec\n" to STATUS_FD,
 * then reap until the bot ends and exit with its status (as pid 1 our death ends the world).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static struct sock_filter prog[4096];
static struct sock_fprog fprog;
static char **bot_argv;
static rlim_t cpu, fsize, nofile, nproc;
static int sync_pipe[2];

static void lim(int res, rlim_t soft, rlim_t hard) {
    struct rlimit r = {soft, hard};
    if (setrlimit(res, &r) != 0) _exit(120);
}

static void child(void) {
    close(sync_pipe[0]);
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
    signal(SIGXFSZ, SIG_IGN); /* a log over its cap: EFBIG, not death (kept across exec) */
    lim(RLIMIT_CPU, cpu, cpu + 1);
    lim(RLIMIT_FSIZE, fsize, fsize);
    lim(RLIMIT_NOFILE, nofile, nofile);
    lim(RLIMIT_CORE, 0, 0);
    if (nproc) lim(RLIMIT_NPROC, nproc, nproc);
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) _exit(121);
    int fd = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_NEW_LISTENER,
                          &fprog);
    if (fd < 0) _exit(122);
    /* the listener's number: the launcher takes its own copy with pidfd_getfd */
    if (write(sync_pipe[1], &fd, sizeof fd) != sizeof fd) _exit(123);
    execv(bot_argv[0], bot_argv);
    _exit(127);
}

int main(int argc, char **argv) {
    if (argc < 8) return 124;
    int bpf = atoi(argv[1]), status_fd = atoi(argv[2]);
    cpu = strtoull(argv[3], 0, 10);
    fsize = strtoull(argv[4], 0, 10);
    nofile = strtoull(argv[5], 0, 10);
    nproc = strtoull(argv[6], 0, 10);
    bot_argv = argv + 7;
    ssize_t n = read(bpf, prog, sizeof prog);
    close(bpf);
    if (n <= 0 || n % sizeof(struct sock_filter)) return 125;
    fprog.len = (unsigned short)(n / sizeof(struct sock_filter));
    fprog.filter = prog;
    if (pipe2(sync_pipe, O_CLOEXEC) != 0) return 126;
    fcntl(status_fd, F_SETFD, FD_CLOEXEC);
    pid_t pid = fork();
    if (pid < 0) return 126;
    if (pid == 0) child();
    close(sync_pipe[1]);
    int listener = -1, theirs = -1;
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (pidfd >= 0 && read(sync_pipe[0], &theirs, sizeof theirs) == sizeof theirs)
        listener = (int)syscall(SYS_pidfd_getfd, pidfd, theirs, 0);
    if (listener >= 0) {
        struct seccomp_notif req;
        struct seccomp_notif_resp resp;
        for (;;) {
            memset(&req, 0, sizeof req);
            if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) break;
            if (errno != EINTR) break;
        }
        memset(&resp, 0, sizeof resp);
        resp.id = req.id;
        resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
        ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp);
        close(listener);  /* from now on an exec finds no listener: ENOSYS */
        if (write(status_fd, "exec\n", 5) != 5) { /* the arena is gone */ }
    }
    close(status_fd);
    close(sync_pipe[0]);
    if (pidfd >= 0) close(pidfd);
    for (int fd = 0; fd < 3; fd++) close(fd);
    int st = 0;
    for (;;) {
        pid_t got = wait(&st);
        if (got == pid) break;
        if (got < 0 && errno != EINTR) return 126;
    }
    if (WIFSIGNALED(st)) {
        signal(WTERMSIG(st), SIG_DFL);
        return 128 + WTERMSIG(st);
    }
    return WEXITSTATUS(st);
}
"""


def launcher_binary() -> Path:
    """The launcher, built with ``gcc -static`` the first time on a machine (about 0.3 s) and
    kept in the arena's cache by the hash of its source. Raises OSError without gcc."""
    cache = _cache_dir()
    if cache is None:
        raise OSError("no private cache directory for the native launcher")
    digest = hashlib.sha256(SOURCE.encode()).hexdigest()[:20]
    dest = cache / f"launch-{digest}"
    if dest.exists():
        return dest
    tmp = cache / f"launch-{digest}.{os.getpid()}.tmp"
    src = tmp.with_suffix(".c")
    src.write_text(SOURCE)
    try:
        p = subprocess.run(
            ["gcc", "-static", "-O2", "-o", str(tmp), str(src)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd="/",
        )
        if p.returncode != 0:
            raise OSError("the native launcher did not build: " + p.stderr.strip()[-300:])
        tmp.chmod(0o755)
        os.replace(tmp, dest)
    finally:
        src.unlink(missing_ok=True)
        tmp.unlink(missing_ok=True)
    return dest
