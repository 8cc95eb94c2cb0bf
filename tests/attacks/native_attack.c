/* A hostile native bot: raw system calls against its world (tests/test_native.py).
 *
 * Compiled with -DATTACK=N (one attack per build). At its first decision it makes the attack's
 * calls and writes "ESCAPED <what>" to its log for every call that should have been refused and
 * was not; then it plays the first legal action forever. The tests require no ESCAPED line and
 * an arena that carries on (for the bombs: the bot faulted or bounded, nothing left behind).
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef ATTACK
#define ATTACK 0
#endif

static void escaped(const char *what, long rc) {
    fprintf(stderr, "ESCAPED %s (%ld)\n", what, rc);
    fflush(stderr);
}

static void *sleeper(void *arg) {
    (void)arg;
    for (;;) pause();
    return NULL;
}

static void walk(const char *dir, int depth) {
    /* every directory the bot can see must be its world's own: tmpfs, its /proc or /dev/pts */
    int fd = open(dir, O_RDONLY | O_DIRECTORY);
    if (fd < 0) return;
    struct statfs fs;
    if (fstatfs(fd, &fs) == 0 && fs.f_type != TMPFS_MAGIC && fs.f_type != PROC_SUPER_MAGIC &&
        fs.f_type != DEVPTS_SUPER_MAGIC /* a new instance per world */) {
        char what[600];
        snprintf(what, sizeof what, "host directory %s (fs 0x%lx)", dir, (long)fs.f_type);
        escaped(what, 0);
    }
    close(fd);
    if (depth > 3 || !strncmp(dir, "/proc", 5)) return;
    DIR *d = opendir(dir);
    if (!d) return;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (e->d_name[0] == '.' || e->d_type != DT_DIR) continue;
        char sub[512];
        snprintf(sub, sizeof sub, "%s/%s", strcmp(dir, "/") ? dir : "", e->d_name);
        walk(sub, depth + 1);
    }
    closedir(d);
}

static void attack(void) {
    long rc;
    switch (ATTACK) {
    case 1: /* network */
        if ((rc = syscall(SYS_socket, AF_INET, SOCK_STREAM, 0)) >= 0) escaped("socket inet", rc);
        if ((rc = syscall(SYS_socket, AF_UNIX, SOCK_STREAM, 0)) >= 0) escaped("socket unix", rc);
        if ((rc = syscall(SYS_socket, AF_NETLINK, SOCK_RAW, 0)) >= 0) escaped("netlink", rc);
        break;
    case 2: /* processes: fork, clone without CLONE_THREAD, vfork, clone3 */
        if ((rc = syscall(SYS_fork)) >= 0) { if (rc == 0) _exit(0); escaped("fork", rc); }
        if ((rc = syscall(SYS_vfork)) >= 0) { if (rc == 0) _exit(0); escaped("vfork", rc); }
        if ((rc = syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0)) >= 0) {
            if (rc == 0) _exit(0);
            escaped("clone", rc);
        }
        if ((rc = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0)) >= 0) {
            if (rc == 0) _exit(0);
            escaped("clone newuser", rc);
        }
        if ((rc = syscall(SYS_unshare, CLONE_NEWUSER)) >= 0) escaped("unshare", rc);
        break;
    case 3: { /* exec after the first exec */
        char *argv[] = {"/bot/bot", NULL}, *envp[] = {"REEXEC=1", NULL};
        syscall(SYS_execve, "/bot/bot", argv, envp); /* returns only when refused */
        syscall(SYS_execveat, AT_FDCWD, "/bot/bot", argv, envp, 0);
        break;
    }
    case 4: { /* files of the machine */
        const char *paths[] = {"/etc/passwd", "/etc/hostname", "/proc/meminfo", "/usr/bin/gcc",
                               "/var/cache/euchre-arena", "/root", "/tmp", "/sys/kernel"};
        for (unsigned i = 0; i < sizeof paths / sizeof *paths; i++)
            if ((rc = syscall(SYS_openat, AT_FDCWD, paths[i], O_RDONLY)) >= 0) escaped(paths[i], rc);
        if ((rc = syscall(SYS_openat, AT_FDCWD, "/bot/x", O_WRONLY | O_CREAT, 0644)) >= 0)
            escaped("create a file", rc);
        if ((rc = syscall(SYS_mkdir, "/x", 0755)) >= 0) escaped("mkdir", rc);
        walk("/", 0);
        break;
    }
    case 5: /* ptrace */
        if ((rc = syscall(SYS_ptrace, PTRACE_TRACEME, 0, 0, 0)) >= 0) escaped("traceme", rc);
        if ((rc = syscall(SYS_ptrace, PTRACE_ATTACH, 1, 0, 0)) >= 0) escaped("attach 1", rc);
        if ((rc = syscall(SYS_kill, 1, SIGKILL)) >= 0) escaped("kill launcher", rc);
        if ((rc = syscall(SYS_kill, -1, SIGKILL)) >= 0) escaped("kill -1", rc);
        break;
    case 6: { /* memory: 8 GiB touched page by page; the cgroup must end it */
        size_t size = (size_t)8 << 30;
        char *m = mmap(0, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (m == MAP_FAILED) break;
        for (size_t i = 0; i < size; i += 4096) m[i] = 1;
        escaped("8 GiB touched", 8);
        break;
    }
    case 7: { /* thread bomb: threads are allowed, but bounded */
        int n = 0;
        pthread_t t;
        while (n < 10000 && pthread_create(&t, NULL, sleeper, NULL) == 0) n++;
        if (n >= 100) escaped("threads", n);
        fprintf(stderr, "threads %d\n", n);
        break;
    }
    case 8: /* fork bomb */
        for (int i = 0; i < 1000; i++)
            if ((rc = syscall(SYS_fork)) >= 0) { if (rc == 0) for (;;) pause(); escaped("fork", rc); }
        break;
    case 9: /* floods: the log past its cap, then stdout without a newline */
        for (int i = 0; i < 4096; i++) fprintf(stderr, "%01023d\n", i);
        fflush(stderr);
        for (int i = 0; i < 4096; i++) fwrite("xxxxxxxxxxxxxxxx", 1, 16, stdout);
        for (;;) fwrite("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy", 1, 32, stdout);
    case 10: { /* dentries: fresh names in every directory it can see */
        const char *dirs[] = {"/", "/bot", "/dev", "/usr", "/usr/lib", "/usr/bin"};
        char name[256];
        for (int k = 0; k < 20000; k++) {
            struct stat st;
            snprintf(name, sizeof name, "%s/n%08x%08x", dirs[k % 6], rand(), k);
            if (stat(name, &st) == 0) escaped(name, 0);
        }
        walk("/", 0);
        break;
    }
    case 11: /* namespaces, mounts, keys, io_uring, bpf, perf */
        if ((rc = syscall(SYS_mount, "none", "/bot", "tmpfs", 0, 0)) >= 0) escaped("mount", rc);
        if ((rc = syscall(SYS_setns, 0, 0)) >= 0) escaped("setns", rc);
        if ((rc = syscall(SYS_io_uring_setup, 8, calloc(1, 256))) >= 0) escaped("io_uring", rc);
        if ((rc = syscall(SYS_bpf, 0, 0, 0)) >= 0) escaped("bpf", rc);
        if ((rc = syscall(SYS_perf_event_open, calloc(1, 256), 0, -1, -1, 0)) >= 0)
            escaped("perf", rc);
        if ((rc = syscall(SYS_memfd_create, "x", 0)) >= 0) escaped("memfd", rc);
        if ((rc = syscall(SYS_mmap, 0, 4096, PROT_READ, MAP_SHARED | MAP_ANONYMOUS, -1, 0)) != -1)
            escaped("shared map", rc);
        break;
    }
}

int main(void) {
    static char line[1 << 20];
    int attacked = 0;
    if (getenv("REEXEC")) escaped("exec after the first", 0);
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"hello\"")) {
            printf("{\"protocol\": 1, \"name\": \"attack%d\"}\n", ATTACK);
        } else {
            if (!attacked++) attack();
            char *id = strstr(line, "\"id\": ");
            char *legal = strstr(line, "\"legal\": [");
            if (!id || !legal) return 1;
            legal += 10;
            char *end = *legal == '[' ? strchr(legal, ']') + 1 : strpbrk(legal, ",]");
            printf("{\"id\": %ld, \"action\": %.*s}\n", strtol(id + 6, 0, 10), (int)(end - legal),
                   legal);
        }
        fflush(stdout);
    }
    return 0;
}
