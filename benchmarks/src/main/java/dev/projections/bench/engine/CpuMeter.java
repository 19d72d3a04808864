package dev.projections.bench.engine;

import dev.projections.bench.db.BenchDatabase;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.Map;

/**
 * Where the CPU went during a phase, on Linux: CPU time of this JVM, of the benchmark database's PostgreSQL backends
 * (read from {@code /proc/<pid>/stat}, so only with the server on this machine), and how busy the whole machine was
 * (including work that is not the benchmark's). Anything it cannot read is {@code NaN}: a figure to print, never to
 * check.
 */
public final class CpuMeter {

    /** Linux's USER_HZ: {@code /proc} counts CPU time in these ticks on every common architecture. */
    private static final double TICKS_PER_SECOND = 100;

    /**
     * What the counters said at one moment; {@code machineNanoTime} is when {@code /proc/stat} was read (the backends
     * are read over a connection of their own, which can take a while on a busy machine).
     */
    public record Sample(long nanoTime, long jvmCpuNanos, long machineNanoTime, long[] machineTicks,
                         Map<Integer, Long> backendTicks) {
    }

    /**
     * CPU over a phase, in CPU-seconds: the JVM's and the database backends' over {@code wallSeconds}, the machine's
     * busy and iowait time over {@code machineWallSeconds}.
     */
    public record Usage(double wallSeconds, double jvmSeconds, double databaseSeconds, double machineWallSeconds,
                        double machineBusySeconds, double machineIowaitSeconds) {

        /** CPU-milliseconds per {@code count} items (e.g. ids) of {@code seconds}. */
        public static double millisPer(double seconds, long items, long count) {
            return seconds * 1000.0 / items * count;
        }

        /** How many CPUs this JVM and the database's backends kept busy on average. */
        public double benchCpusBusy() {
            return (jvmSeconds + databaseSeconds) / wallSeconds;
        }

        /** How many CPUs the whole machine had busy on average, any work. */
        public double machineCpusBusy() {
            return machineBusySeconds / machineWallSeconds;
        }

        /** How many CPUs sat in iowait on average. */
        public double machineCpusIowait() {
            return machineIowaitSeconds / machineWallSeconds;
        }
    }

    private final BenchDatabase database;

    public CpuMeter(BenchDatabase database) {
        this.database = database;
    }

    public Sample sample() {
        long[] machine = machineTicks();
        long machineNanoTime = System.nanoTime();
        return new Sample(System.nanoTime(), jvmCpuNanos(), machineNanoTime, machine, backendTicks());
    }

    /** Usage from {@code before} to now. Backends that ended in between are not counted (their time is gone). */
    public Usage since(Sample before) {
        Sample after = sample();
        double database = Double.NaN;
        if (after.backendTicks() != null && before.backendTicks() != null) {
            long ticks = 0;
            for (Map.Entry<Integer, Long> backend : after.backendTicks().entrySet()) {
                ticks += backend.getValue() - before.backendTicks().getOrDefault(backend.getKey(), 0L);
            }
            database = ticks / TICKS_PER_SECOND;
        }
        double busy = Double.NaN;
        double iowait = Double.NaN;
        if (after.machineTicks() != null && before.machineTicks() != null) {
            long[] b = before.machineTicks();
            long[] a = after.machineTicks();
            // user nice system idle iowait irq softirq steal: busy is all but idle and iowait
            long total = 0;
            for (int i = 0; i < Math.min(8, a.length); i++) {
                total += a[i] - b[i];
            }
            long idle = a[3] - b[3];
            long waiting = a[4] - b[4];
            busy = (total - idle - waiting) / TICKS_PER_SECOND;
            iowait = waiting / TICKS_PER_SECOND;
        }
        double jvm = after.jvmCpuNanos() < 0 || before.jvmCpuNanos() < 0 ? Double.NaN
                : (after.jvmCpuNanos() - before.jvmCpuNanos()) / 1e9;
        return new Usage((after.nanoTime() - before.nanoTime()) / 1e9, jvm, database,
                (after.machineNanoTime() - before.machineNanoTime()) / 1e9, busy, iowait);
    }

    private static long jvmCpuNanos() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.OperatingSystemMXBean os) {
            return os.getProcessCpuTime();
        }
        return -1;
    }

    /** utime + stime of every backend connected to the benchmark's database, by pid; null when unreadable. */
    private Map<Integer, Long> backendTicks() {
        Map<Integer, Long> ticks = new HashMap<>();
        try (Connection connection = database.connect(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery(
                     "SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")) {
            while (rows.next()) {
                int pid = rows.getInt(1);
                Long used = processTicks(pid);
                if (used != null) {
                    ticks.put(pid, used);
                }
            }
        } catch (Exception e) {
            return null;
        }
        return ticks.isEmpty() ? null : ticks;
    }

    /** Fields 14 and 15 of /proc/pid/stat, counted after the command name (which may hold spaces). */
    private static Long processTicks(int pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Integer.toString(pid), "stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return Long.parseLong(fields[11]) + Long.parseLong(fields[12]);
        } catch (Exception e) {
            return null;
        }
    }

    private static long[] machineTicks() {
        try {
            String[] fields = Files.readAllLines(Path.of("/proc/stat")).get(0).trim().split("\\s+");
            long[] ticks = new long[fields.length - 1];
            for (int i = 1; i < fields.length; i++) {
                ticks[i - 1] = Long.parseLong(fields[i]);
            }
            return ticks;
        } catch (Exception e) {
            return null;
        }
    }
}
