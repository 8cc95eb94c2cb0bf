// A hostile Rust bot (tests/test_native_attacks_more.py), std only (builds with rustc 1.63).
// At its first decision it tries, through std::process, std::net, std::fs and libc's raw
// syscall(2) alike: a child process, fork and exec, TCP and UDP, the machine's files, signals
// to pid 1 and -1. It writes "refused <what>: <error>" for each refusal and "ESCAPED <what>"
// for anything that should have been refused and was not; then it plays the first legal
// action. The test switches MODE to "threads" (std::thread until the pids cgroup stops them),
// "memory" (allocate until the memory cgroup ends the bot) or "marks" (look for files an
// earlier match left, then try to leave some).
use std::fs;
use std::io::{self, BufRead, Write};
use std::net::{SocketAddr, TcpStream, UdpSocket};
use std::process::Command;
use std::thread;
use std::time::Duration;

const MODE: &str = "all";

extern "C" {
    fn syscall(number: i64, ...) -> i64;
    fn kill(pid: i32, signal: i32) -> i32;
}

fn escaped(what: &str) {
    eprintln!("ESCAPED {}", what);
}

fn check<T, E: std::fmt::Display>(what: &str, result: Result<T, E>) {
    match result {
        Ok(_) => escaped(what),
        Err(e) => eprintln!("refused {}: {}", what, e),
    }
}

fn raw(what: &str, number: i64, a: i64, b: i64, c: i64) {
    let rc = unsafe { syscall(number, a, b, c) };
    if rc < 0 {
        eprintln!("refused {}: {}", what, io::Error::last_os_error());
        return;
    }
    if number == 57 && rc == 0 {
        unsafe { syscall(231, 0i64) }; // exit_group in the child, if there were one
    }
    escaped(&format!("{} ({})", what, rc));
}

fn signal(what: &str, pid: i32) {
    if unsafe { kill(pid, 9) } == 0 {
        escaped(what);
    } else {
        eprintln!("refused {}: {}", what, io::Error::last_os_error());
    }
}

fn attack() {
    check("Command", Command::new("/bin/sh").arg("-c").arg("echo hi").status());
    raw("raw fork", 57, 0, 0, 0);
    let path = b"/bin/true\0";
    let argv = [path.as_ptr() as i64, 0];
    raw("raw execve", 59, path.as_ptr() as i64, argv.as_ptr() as i64, 0);
    let addr: SocketAddr = "1.1.1.1:80".parse().unwrap();
    check("tcp connect", TcpStream::connect_timeout(&addr, Duration::from_millis(500)));
    check(
        "udp send",
        UdpSocket::bind("0.0.0.0:0").and_then(|u| u.send_to(b"x", "8.8.8.8:53")),
    );
    raw("raw socket", 41, 2, 1, 0);
    for p in ["/etc/passwd", "/proc/1/environ", "/root/.bashrc"] {
        check(&format!("read {}", p), fs::read(p));
    }
    check("list /root", fs::read_dir("/root"));
    check("write /tmp", fs::write("/tmp/rust-attack", "x"));
    check("write /bot", fs::write("/bot/x", "x"));
    check("write /etc/passwd", fs::write("/etc/passwd", "x"));
    signal("kill 1", 1);
    signal("kill -1", -1);
    raw("raw kill 1", 62, 1, 9, 0);
}

fn threads() {
    let mut made = 0;
    for n in 1..=1000 {
        let spawned = thread::Builder::new()
            .stack_size(64 << 10)
            .spawn(|| loop {
                thread::sleep(Duration::from_secs(1000));
            });
        match spawned {
            Ok(_) => made = n,
            Err(e) => {
                eprintln!("threads stopped: {}", e);
                break;
            }
        }
        if n % 10 == 0 {
            eprintln!("threads {}", n);
        }
    }
    eprintln!("threads {}", made);
    if made >= 1000 {
        escaped("threads 1000");
    }
}

// marks: look for what an earlier match left, then try to leave marks for a later one.
fn marks() {
    for p in ["/tmp/mark", "/dev/shm/mark", "mark", "/bot/mark", "/mark"] {
        if fs::metadata(p).is_ok() {
            eprintln!("FOUND {}", p);
        }
        let done = if fs::write(p, "x").is_ok() { "WROTE" } else { "BLOCKED" };
        eprintln!("{} {}", done, p);
    }
}

fn memory() {
    let mut hoard: Vec<Vec<u8>> = Vec::new();
    for mb in (64..=8192).step_by(64) {
        let mut chunk = vec![0u8; 64 << 20];
        for i in (0..chunk.len()).step_by(4096) {
            chunk[i] = 1;
        }
        hoard.push(chunk);
        eprintln!("allocated {} MiB", mb);
    }
    escaped("memory 8 GiB");
}

fn first_legal(line: &str) -> &str {
    let legal = &line[line.find("\"legal\"").unwrap()..];
    let legal = legal[legal.find('[').unwrap() + 1..].trim_start();
    if legal.starts_with('[') {
        &legal[..legal.find(']').unwrap() + 1]
    } else {
        &legal[..legal.find(|c| c == ',' || c == ']').unwrap()]
    }
}

fn main() {
    let stdin = io::stdin();
    let mut out = io::stdout();
    let mut attacked = false;
    for line in stdin.lock().lines() {
        let line = match line {
            Ok(line) => line,
            Err(_) => return,
        };
        if line.contains("\"hello\"") {
            writeln!(out, "{{\"protocol\": 1, \"name\": \"rust-attack\"}}").unwrap();
            out.flush().unwrap();
            continue;
        }
        if !attacked {
            attacked = true;
            match MODE {
                "threads" => threads(),
                "memory" => memory(),
                "marks" => marks(),
                _ => attack(),
            }
        }
        let id = &line[line.find("\"id\":").unwrap() + 5..];
        let id: String = id.trim_start().chars().take_while(|c| c.is_ascii_digit()).collect();
        writeln!(out, "{{\"id\": {}, \"action\": {}}}", id, first_legal(&line)).unwrap();
        out.flush().unwrap();
    }
}
