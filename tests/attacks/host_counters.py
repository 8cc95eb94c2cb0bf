"""Looks for host-wide figures that other sandboxes move: sysinfo(2), /proc and /sys figures,
load average, free disk space, another process's CPU clock.

Prints "ESCAPED <what>" for each one it can read.
"""

import ctypes
import os
import time

libc = ctypes.CDLL(None, use_errno=True)


class Bot:
    def __init__(self):
        self.done = False

    def act(self, obs):
        if not self.done:
            self.done = True
            print("RAN")
            buf = ctypes.create_string_buffer(128)
            if libc.sysinfo(buf) == 0:
                print("ESCAPED sysinfo")
            else:
                print("BLOCKED sysinfo", ctypes.get_errno())
            for path in (
                "/proc/meminfo",
                "/proc/loadavg",
                "/proc/stat",
                "/proc/vmstat",
                "/proc/uptime",
                "/proc/pressure/cpu",
                "/sys/fs/cgroup/memory.stat",
                "/sys/kernel/mm/transparent_hugepage/enabled",
                "/proc/1/stat",
                "/proc/self/stat",
                "/proc/sys/kernel/ns_last_pid",
            ):
                try:
                    with open(path) as f:
                        f.read(100)
                    print("ESCAPED read", path)
                except OSError as e:
                    print("BLOCKED", path, e.errno)
            try:
                os.getloadavg()
                print("ESCAPED getloadavg")
            except OSError as e:
                print("BLOCKED getloadavg", e.errno)
            for path in ("/", "/usr", "/bot"):
                try:
                    st = os.statvfs(path)
                    print("ESCAPED statvfs", path, st.f_bfree)
                except OSError as e:
                    print("BLOCKED statvfs", path, e.errno)
            for pid in (1, 2, os.getppid()):
                clock = (~pid << 3) | 2  # the CPU clock of process pid (CPUCLOCK_SCHED)
                try:
                    time.clock_gettime(clock)
                    print("ESCAPED clock of pid", pid)
                except OSError as e:
                    print("BLOCKED clock of pid", pid, e.errno)
        return obs["legal"][0]
