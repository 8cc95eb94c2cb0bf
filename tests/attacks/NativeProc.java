// A Java bot looking through the /proc of its world (the JVM gets one of its own) and the
// JDK's system figures for anything of the machine: other processes, host-wide counters that
// other bots move (CPU ticks, load, memory, uptime). Prints "ESCAPED <what>" for each one it
// can read and "PIDS <n>" for the processes it sees (tests/test_native_channels.py); then it
// plays the first legal action.
import java.io.BufferedReader;
import java.io.File;
import java.io.InputStreamReader;
import java.lang.management.ManagementFactory;

public class NativeProc {
    static void look() {
        String[] paths = {"/proc/stat", "/proc/loadavg", "/proc/meminfo", "/proc/uptime",
            "/proc/vmstat", "/proc/pressure/cpu", "/proc/schedstat", "/proc/interrupts",
            "/proc/diskstats", "/proc/softirqs", "/proc/sys/kernel/ns_last_pid",
            "/proc/sys/kernel/random/entropy_avail", "/proc/timer_list", "/proc/cpuinfo",
            "/proc/sysvipc/shm", "/proc/fs/nfsd/threads"};
        for (String p : paths) {
            try {
                java.io.FileInputStream f = new java.io.FileInputStream(p);
                int n = f.read(new byte[256]);
                f.close();
                if (n > 0) System.err.println("ESCAPED read " + p);
                else System.err.println("EMPTY " + p);
            } catch (Throwable e) { System.err.println("BLOCKED " + p + " " + e); }
        }
        int pids = 0;
        File[] all = new File("/proc").listFiles();
        for (File f : all == null ? new File[0] : all) {
            if (f.getName().matches("\\d+")) { pids++; System.err.println("PID " + f.getName()); }
        }
        System.err.println("PIDS " + pids);
        try {
            com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
            double load = os.getSystemLoadAverage();
            if (load >= 0) System.err.println("ESCAPED load average " + load);
            double cpu = os.getCpuLoad();
            if (cpu > 0) System.err.println("ESCAPED cpu load " + cpu);
            System.err.println("FIGURES load=" + load + " cpu=" + cpu + " free=" + os.getFreeMemorySize()
                + " total=" + os.getTotalMemorySize() + " uptime=" + ManagementFactory.getRuntimeMXBean().getUptime());
        } catch (Throwable e) { System.err.println("BLOCKED mxbean " + e); }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        boolean looked = false;
        String line;
        while ((line = in.readLine()) != null) {
            if (line.contains("\"hello\"")) {
                System.out.println("{\"protocol\": 1, \"name\": \"java-proc\"}");
            } else {
                if (!looked) { looked = true; look(); }
                int id = Integer.parseInt(line.replaceAll(".*?\"id\": ?(\\d+).*", "$1"));
                int at = line.indexOf("\"legal\":");
                String legal = line.substring(line.indexOf('[', at) + 1);
                String first = legal.startsWith("[") ? legal.substring(0, legal.indexOf(']') + 1)
                                                     : legal.substring(0, legal.indexOf('"', 1) + 1);
                System.out.println("{\"id\": " + id + ", \"action\": " + first + "}");
            }
            System.out.flush();
        }
    }
}
