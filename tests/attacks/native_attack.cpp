// A hostile C++ bot (tests/test_native_attacks_more.py). At its first decision it tries, through
// the C++ library, POSIX and raw syscall(2) alike: a child process, fork and exec, TCP and UDP,
// the machine's files, signals to pid 1 and -1. It writes "refused <what>: <error>" for each
// refusal and "ESCAPED <what>" for anything that should have been refused and was not; then it
// plays the first legal action. The test switches `mode` to "threads" (std::thread until the
// pids cgroup stops them), "memory" (allocate until the memory cgroup ends the bot) or "marks"
// (look for files an earlier match left, then try to leave some).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

static const std::string mode = "all";

static void escaped(const std::string &what) { std::cerr << "ESCAPED " << what << std::endl; }

static void check(const std::string &what, long rc) {  // a C call: -1 and errno when refused
    if (rc >= 0) escaped(what + " (" + std::to_string(rc) + ")");
    else std::cerr << "refused " << what << ": " << std::strerror(errno) << std::endl;
}

static void connect_to(const std::string &what, int type, const char *ip, int port) {
    int s = socket(AF_INET, type, 0);
    if (s < 0) return check(what, s);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, ip, &a.sin_addr);
    long rc = type == SOCK_DGRAM ? sendto(s, "x", 1, 0, (sockaddr *)&a, sizeof a)
                                 : connect(s, (sockaddr *)&a, sizeof a);
    check(what, rc);
    close(s);
}

static void read_file(const std::string &path) {
    std::ifstream in(path, std::ios::binary);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in && !text.empty()) escaped("read " + path);
    else std::cerr << "refused read " << path << ": " << std::strerror(errno) << std::endl;
}

static void write_file(const std::string &what, const std::string &path) {
    std::ofstream out(path);
    out << "x" << std::flush;
    if (out) escaped(what);
    else std::cerr << "refused " << what << ": " << std::strerror(errno) << std::endl;
}

static void attack() {
    int status = std::system("echo hi");
    if (status == 0) escaped("std::system");
    else std::cerr << "refused std::system: status " << status << std::endl;
    pid_t pid = fork();
    if (pid == 0) _exit(0);  // the child, if there were one
    if (pid > 0) waitpid(pid, nullptr, 0);
    check("fork", pid);
    char *argv[] = {const_cast<char *>("/bin/true"), nullptr};
    check("execv", execv("/bin/true", argv));
    check("raw clone", syscall(SYS_clone, SIGCHLD, 0, 0, 0, 0));  // a process, not a thread
    connect_to("tcp connect", SOCK_STREAM, "1.1.1.1", 80);
    connect_to("udp send", SOCK_DGRAM, "8.8.8.8", 53);
    check("raw socket", syscall(SYS_socket, AF_INET6, SOCK_STREAM, 0));
    for (const char *p : {"/etc/passwd", "/proc/1/environ", "/root/.bashrc"}) read_file(p);
    std::error_code error;
    std::filesystem::directory_iterator root("/root", error);
    if (!error) escaped("list /root");
    else std::cerr << "refused list /root: " << error.message() << std::endl;
    write_file("write /tmp", "/tmp/cpp-attack");
    write_file("write /bot", "/bot/x");
    write_file("write /etc/passwd", "/etc/passwd");
    check("kill 1", kill(1, SIGKILL));
    check("kill -1", kill(-1, SIGKILL));
    check("raw kill 1", syscall(SYS_kill, 1, SIGKILL));
}

static void threads() {
    std::vector<std::thread> made;
    try {
        while (made.size() < 1000) {
            made.emplace_back([] { for (;;) std::this_thread::sleep_for(std::chrono::hours(1)); });
            if (made.size() % 10 == 0) std::cerr << "threads " << made.size() << std::endl;
        }
        escaped("threads 1000");
    } catch (const std::system_error &e) {
        std::cerr << "threads stopped: " << e.what() << std::endl;
    }
    std::cerr << "threads " << made.size() << std::endl;
    for (auto &t : made) t.detach();
}

// marks: look for what an earlier match left, then try to leave marks for a later one.
static void marks() {
    for (const char *p : {"/tmp/mark", "/dev/shm/mark", "mark", "/bot/mark", "/mark"}) {
        std::error_code error;
        if (std::filesystem::exists(p, error)) std::cerr << "FOUND " << p << std::endl;
        std::ofstream out(p);
        out << "x" << std::flush;
        std::cerr << (out ? "WROTE " : "BLOCKED ") << p << std::endl;
    }
}

static std::vector<std::unique_ptr<char[]>> hoard;

static void memory() {
    for (int mb = 64; mb <= 8192; mb += 64) {
        hoard.emplace_back(new char[64 << 20]);
        for (long i = 0; i < 64 << 20; i += 4096) hoard.back()[i] = 1;
        std::cerr << "allocated " << mb << " MiB" << std::endl;
    }
    escaped("memory 8 GiB");
}

static std::string first_legal(const std::string &line) {
    std::string legal = line.substr(line.find("\"legal\""));
    legal = legal.substr(legal.find('[') + 1);
    legal = legal.substr(legal.find_first_not_of(' '));
    if (legal[0] == '[') return legal.substr(0, legal.find(']') + 1);
    return legal.substr(0, legal.find_first_of(",]"));
}

int main() {
    std::string line;
    bool attacked = false;
    while (std::getline(std::cin, line)) {
        if (line.find("\"hello\"") != std::string::npos) {
            std::cout << "{\"protocol\": 1, \"name\": \"cpp-attack\"}" << std::endl;
            continue;
        }
        if (!attacked) {
            attacked = true;
            if (mode == "threads") threads();
            else if (mode == "memory") memory();
            else if (mode == "marks") marks();
            else attack();
        }
        long id = std::atol(line.c_str() + line.find("\"id\":") + 5);
        std::cout << "{\"id\": " << id << ", \"action\": " << first_legal(line) << "}" << std::endl;
    }
}
