// A hostile Go bot (tests/test_native_attacks_more.py). At its first decision it tries, through
// os/exec, net, os and raw syscall.Syscall alike: a child process, fork and exec, TCP and UDP,
// the machine's files, signals to pid 1 and -1. It writes "refused <what>: <error>" for each
// refusal and "ESCAPED <what>" for anything that should have been refused and was not; then it
// plays the first legal action. The test switches `mode` to "threads" (OS threads until the
// pids cgroup stops them), "memory" (allocate until the memory cgroup ends the bot) or "marks"
// (look for files an earlier match left, then try to leave some).
package main

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"
)

var mode = "all"

func escaped(what string) { fmt.Fprintf(os.Stderr, "ESCAPED %s\n", what) }

func check(what string, err error) {
	if err == nil {
		escaped(what)
	} else {
		fmt.Fprintf(os.Stderr, "refused %s: %v\n", what, err)
	}
}

func raw(what string, trap, a1, a2, a3 uintptr) {
	r, _, errno := syscall.RawSyscall(trap, a1, a2, a3)
	if errno == 0 {
		if trap == syscall.SYS_FORK && r == 0 {
			syscall.RawSyscall(syscall.SYS_EXIT_GROUP, 0, 0, 0) // the child, if there were one
		}
		escaped(fmt.Sprintf("%s (%d)", what, r))
	} else {
		fmt.Fprintf(os.Stderr, "refused %s: %v\n", what, errno)
	}
}

func attack() {
	check("exec.Command", exec.Command("/bin/sh", "-c", "echo hi").Run())
	_, err := syscall.ForkExec("/bin/true", []string{"true"}, nil)
	check("ForkExec", err)
	raw("raw fork", syscall.SYS_FORK, 0, 0, 0)
	argv := []*byte{syscall.StringBytePtr("/bin/true"), nil}
	raw("raw execve", syscall.SYS_EXECVE, uintptr(unsafe.Pointer(argv[0])), uintptr(unsafe.Pointer(&argv[0])), 0)
	conn, err := net.DialTimeout("tcp", "1.1.1.1:80", 500*time.Millisecond)
	if err == nil {
		conn.Close()
	}
	check("tcp connect", err)
	udp, err := net.Dial("udp", "8.8.8.8:53")
	if err == nil {
		_, err = udp.Write([]byte("x"))
		udp.Close()
	}
	check("udp send", err)
	raw("raw socket", syscall.SYS_SOCKET, syscall.AF_INET, syscall.SOCK_STREAM, 0)
	for _, p := range []string{"/etc/passwd", "/proc/1/environ", "/root/.bashrc"} {
		_, err := os.ReadFile(p)
		check("read "+p, err)
	}
	_, err = os.ReadDir("/root")
	check("list /root", err)
	check("write /tmp", os.WriteFile("/tmp/go-attack", []byte("x"), 0o644))
	check("write /bot", os.WriteFile("/bot/x", []byte("x"), 0o644))
	check("write /etc/passwd", os.WriteFile("/etc/passwd", []byte("x"), 0o644))
	check("kill 1", syscall.Kill(1, syscall.SIGKILL))
	check("kill -1", syscall.Kill(-1, syscall.SIGKILL))
	raw("raw kill 1", syscall.SYS_KILL, 1, uintptr(syscall.SIGKILL), 0)
}

// threads: every goroutine takes an OS thread of its own and blocks in a system call, so the
// runtime must make a new thread for each; the pids cgroup (64 tasks) ends this, and the Go
// runtime then dies ("failed to create new OS thread"), which is its way of failing.
func threads() {
	var fds [2]int
	if err := syscall.Pipe(fds[:]); err != nil {
		fmt.Fprintf(os.Stderr, "refused pipe: %v\n", err)
		return
	}
	for n := 1; n <= 1000; n++ {
		go func() {
			runtime.LockOSThread()
			buf := make([]byte, 1)
			syscall.Read(fds[0], buf)
		}()
		time.Sleep(time.Millisecond)
		if n%10 == 0 {
			fmt.Fprintf(os.Stderr, "threads %d\n", n)
		}
	}
	escaped("threads 1000")
}

// marks: look for what an earlier match left, then try to leave marks for a later one.
func marks() {
	for _, p := range []string{"/tmp/mark", "/dev/shm/mark", "mark", "/bot/mark", "/mark"} {
		if _, err := os.Stat(p); err == nil {
			fmt.Fprintf(os.Stderr, "FOUND %s\n", p)
		}
		if os.WriteFile(p, []byte("x"), 0o644) == nil {
			fmt.Fprintf(os.Stderr, "WROTE %s\n", p)
		} else {
			fmt.Fprintf(os.Stderr, "BLOCKED %s\n", p)
		}
	}
}

var hoard [][]byte

func memory() {
	for mb := 64; mb <= 8192; mb += 64 {
		chunk := make([]byte, 64<<20)
		for i := 0; i < len(chunk); i += 4096 {
			chunk[i] = 1
		}
		hoard = append(hoard, chunk)
		fmt.Fprintf(os.Stderr, "allocated %d MiB\n", mb)
	}
	escaped("memory 8 GiB")
}

func firstLegal(line string) string {
	legal := line[strings.Index(line, `"legal"`):]
	legal = strings.TrimLeft(legal[strings.IndexByte(legal, '[')+1:], " ")
	if legal[0] == '[' {
		return legal[:strings.IndexByte(legal, ']')+1]
	}
	return legal[:strings.IndexAny(legal, ",]")]
}

func main() {
	in := bufio.NewReader(os.Stdin)
	attacked := false
	for {
		line, err := in.ReadString('\n')
		if err != nil {
			return
		}
		if strings.Contains(line, `"hello"`) {
			fmt.Println(`{"protocol": 1, "name": "go-attack"}`)
			continue
		}
		if !attacked {
			attacked = true
			switch mode {
			case "threads":
				threads()
			case "memory":
				memory()
			case "marks":
				marks()
			default:
				attack()
			}
		}
		var id int
		fmt.Sscanf(strings.TrimLeft(line[strings.Index(line, `"id":`)+5:], " "), "%d", &id)
		fmt.Printf("{\"id\": %d, \"action\": %s}\n", id, firstLegal(line))
	}
}
