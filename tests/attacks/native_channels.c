/* Hostile native bots against fair play (tests/test_native_channels.py), played through the
 * real BotPool. Compiled with "#define MODE N" prepended (one mode per build):
 *
 *   1 PERSIST: at hello, looks for the marks a copy of itself left in an earlier match
 *     ("FOUND <where>" per mark seen, "NONE" when it sees none), then leaves marks wherever it
 *     can: /tmp, /dev/shm, its cwd, /bot, a memfd, the environment ("WROTE <where>" or
 *     "BLOCKED <where>").
 *   2 THIEF: threads that burn CPU for ever (between its turns too, while the others think);
 *     at each of its turns the main thread sleeps until the threads have burnt 0.02 s of CPU
 *     more, then answers ("BURNT <cpu seconds>" per turn).
 *   3 REACH: looks for the other bots of its match: an abstract unix socket (binds one, connects
 *     to it from the other seat), a signal to every process (kill -1) and to pid 1, POSIX shared
 *     memory, the other processes' pipes by /proc/<pid>/fd. "REACHED <how>" for anything that
 *     got through, "BLOCKED <how>" otherwise, "PIDS <n>" for the processes it sees.
 *
 * Every mode plays the first legal action.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifndef MODE
#define MODE 0
#endif

static void say(const char *what, const char *where) {
    fprintf(stderr, "%s %s\n", what, where);
    fflush(stderr);
}

/* ---- 1: state that outlives a match ---- */
static const char *const PLACES[] = {"/tmp/euchre-mark", "/dev/shm/euchre-mark", "euchre-mark",
                                     "/bot/euchre-mark", "/euchre-mark"};

static void persist(void) {
    int found = 0;
    for (size_t i = 0; i < sizeof PLACES / sizeof *PLACES; i++) {
        if (access(PLACES[i], F_OK) == 0) { say("FOUND", PLACES[i]); found++; }
    }
    if (getenv("EUCHRE_MARK")) { say("FOUND", "env"); found++; }
    DIR *d = opendir("/proc/self/fd"); /* an inherited memfd would show as an fd */
    struct dirent *e;
    char target[256], path[300];
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof path, "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof target - 1);
        if (n > 0) { target[n] = 0; if (strstr(target, "euchre-mark")) { say("FOUND", "memfd"); found++; } }
    }
    if (d) closedir(d);
    if (!found) say("NONE", "-");
    for (size_t i = 0; i < sizeof PLACES / sizeof *PLACES; i++) {
        int fd = open(PLACES[i], O_WRONLY | O_CREAT | O_TRUNC, 0666);
        if (fd >= 0 && write(fd, "mark\n", 5) == 5) say("WROTE", PLACES[i]);
        else say("BLOCKED", PLACES[i]);
        if (fd >= 0) close(fd);
    }
    long m = syscall(SYS_memfd_create, "euchre-mark", 0);
    say(m >= 0 ? "WROTE" : "BLOCKED", "memfd");
    say(setenv("EUCHRE_MARK", "1", 1) == 0 ? "WROTE" : "BLOCKED", "env");
}

/* ---- 2: the CPU thief ---- */
static void *burn(void *arg) {
    volatile unsigned long x = 0;
    (void)arg;
    for (;;) x++;
    return NULL;
}

static double cpu_now(void) {
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void thief_turn(int first) {
    if (first) {
        for (int i = 0; i < 3; i++) {
            pthread_t t;
            if (pthread_create(&t, NULL, burn, NULL) != 0) say("BLOCKED", "thread");
        }
    }
    double until = cpu_now() + 0.02;
    struct timespec ms = {0, 1000000};
    while (cpu_now() < until) nanosleep(&ms, NULL); /* the main thread itself burns nothing */
    char cpu[32];
    snprintf(cpu, sizeof cpu, "%.3f", cpu_now());
    say("BURNT", cpu);
}

/* ---- 3: reaching the other bots ---- */
static int listener = -1;

static void reach(int first) {
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    memcpy(a.sun_path, "\0euchre-chan", 12);
    socklen_t len = offsetof(struct sockaddr_un, sun_path) + 12;
    int s = socket(AF_UNIX, SOCK_STREAM, 0);
    if (s >= 0 && connect(s, (struct sockaddr *)&a, len) == 0) say("REACHED", "abstract socket");
    else if (first) say("BLOCKED", "abstract socket connect");
    if (s >= 0) close(s);
    if (first) {
        listener = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK, 0);
        if (listener >= 0 && bind(listener, (struct sockaddr *)&a, len) == 0 && listen(listener, 4) == 0)
            say("LISTENING", "abstract socket");
        else say("BLOCKED", "abstract socket bind");
        struct sockaddr_un d = {.sun_family = AF_UNIX};
        memcpy(d.sun_path, "\0euchre-dgram", 13);
        int g = socket(AF_UNIX, SOCK_DGRAM, 0);
        if (g >= 0 && sendto(g, "x", 1, 0, (struct sockaddr *)&d, offsetof(struct sockaddr_un, sun_path) + 13) == 1)
            say("REACHED", "abstract datagram");
        else say("BLOCKED", "abstract datagram");
        signal(SIGUSR1, SIG_IGN);
        signal(SIGUSR2, SIG_IGN);
        say(kill(-1, SIGUSR1) == 0 ? "SIGNALLED" : "BLOCKED", "kill -1");
        say(kill(1, SIGUSR2) == 0 ? "SIGNALLED" : "BLOCKED", "kill 1");
        int shm = open("/dev/shm/euchre-chan", O_RDWR | O_CREAT, 0666);
        if (shm >= 0) {
            char buf[8] = {0};
            if (read(shm, buf, sizeof buf) > 0) say("REACHED", "shared memory");
            if (write(shm, "seat", 4) == 4) say("WROTE", "shared memory");
            close(shm);
        } else say("BLOCKED", "shared memory");
        void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        say(p == MAP_FAILED ? "BLOCKED" : "MAPPED", "shared map");
    }
    if (listener >= 0) {
        int c = accept(listener, NULL, NULL);
        if (c >= 0) { say("REACHED", "abstract socket accept"); close(c); }
    }
    /* every process it can see, and their pipes */
    DIR *d = opendir("/proc");
    struct dirent *e;
    int pids = 0;
    pid_t me = getpid();
    while (d && (e = readdir(d))) {
        int pid = atoi(e->d_name);
        if (pid <= 0) continue;
        pids++;
        if (pid == me || pid == 1) continue;
        char path[64];
        for (int fd = 0; fd < 8; fd++) {
            snprintf(path, sizeof path, "/proc/%d/fd/%d", pid, fd);
            int f = open(path, O_RDONLY | O_NONBLOCK);
            if (f >= 0) { say("REACHED", path); close(f); }
        }
    }
    if (d) closedir(d);
    char n[16];
    snprintf(n, sizeof n, "%d", pids);
    if (first) say("PIDS", n);
}

static void answer(char *line) {
    char *id = strstr(line, "\"id\":");
    char *legal = strstr(line, "\"legal\":");
    if (!id || !legal) exit(1);
    id += 5;
    legal += 8;
    while (*legal == ' ') legal++;
    legal++; /* the list's '[' */
    char *end = *legal == '[' ? strchr(legal, ']') + 1 : strpbrk(legal, ",]");
    printf("{\"id\": %ld, \"action\": %.*s}\n", strtol(id, 0, 10), (int)(end - legal), legal);
}

int main(void) {
    static char line[1 << 20];
    int turns = 0;
    while (fgets(line, sizeof line, stdin)) {
        if (strstr(line, "\"hello\"")) {
            if (MODE == 1) persist();
            printf("{\"protocol\": 1, \"name\": \"channels%d\"}\n", MODE);
        } else {
            if (MODE == 2) thief_turn(turns == 0);
            if (MODE == 3) reach(turns == 0);
            turns++;
            answer(line);
        }
        fflush(stdout);
    }
    return 0;
}
