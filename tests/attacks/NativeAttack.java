// A hostile Java bot (tests/test_native.py): at its first decision it tries child processes,
// many threads, the network and the machine's files, and logs "ESCAPED <what>" for anything
// that should have been refused and was not; then it plays the first legal action.
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;

public class NativeAttack {
    static void escaped(String what) { System.err.println("ESCAPED " + what); }

    static void attack() {
        try {
            Process p = new ProcessBuilder("/bin/sh", "-c", "echo hi").start();
            escaped("process " + p.waitFor());
        } catch (Throwable e) { System.err.println("refused process: " + e); }
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("1.1.1.1", 80), 500);
            escaped("tcp connect");
        } catch (Throwable e) { System.err.println("refused tcp: " + e); }
        for (String p : new String[] {"/etc/passwd", "/proc/meminfo", "/usr/bin/gcc", "/root"}) {
            try {
                Files.readAllBytes(Path.of(p));
                if (!p.equals("/proc/meminfo")) escaped("read " + p);
            } catch (Throwable e) { System.err.println("refused " + p); }
        }
        try {
            Files.writeString(Path.of("/bot/x"), "x");
            escaped("write a file");
        } catch (Throwable e) { System.err.println("refused write"); }
        int n = 0;
        try {
            for (; n < 5000; n++) {
                Thread t = new Thread(() -> { try { Thread.sleep(1_000_000); } catch (InterruptedException e) { } });
                t.setDaemon(true);
                t.start();
            }
        } catch (Throwable e) { System.err.println("threads stopped: " + e); }
        System.err.println("threads " + n);
        if (n >= 100) escaped("threads " + n);
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        boolean attacked = false;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"hello\"")) {
                System.out.println("{\"protocol\": 1, \"name\": \"java-attack\"}");
            } else {
                if (!attacked) { attacked = true; attack(); }
                int id = Integer.parseInt(line.replaceAll(".*\"id\": (\\d+).*", "$1"));
                String legal = line.substring(line.indexOf("\"legal\": [") + 10);
                String first = legal.startsWith("[") ? legal.substring(0, legal.indexOf(']') + 1)
                                                     : legal.substring(0, legal.indexOf('"', 1) + 1);
                System.out.println("{\"id\": " + id + ", \"action\": " + first + "}");
            }
            System.out.flush();
        }
    }
}
