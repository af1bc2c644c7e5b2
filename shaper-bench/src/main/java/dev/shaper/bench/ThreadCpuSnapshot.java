package dev.shaper.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * CPU time of every thread of this JVM, native ones included (JIT compilers, GC, RocksDB's flush and compaction
 * threads), read from Linux's {@code /proc/self/task}: where a measurement's CPU went, broker included, on a
 * machine whose cores all of them share. Empty where {@code /proc} does not exist.
 */
final class ThreadCpuSnapshot {

    private static final Path TASKS = Path.of("/proc/self/task");
    /** Clock ticks per second of {@code /proc}'s utime and stime; 100 on every Linux this runs on. */
    private static final double TICKS_PER_SECOND = 100;
    private static final Pattern DIGITS = Pattern.compile("\\d+");

    /** Per thread id: the thread's name (as the kernel keeps it, at most 15 characters) and its CPU ticks. */
    private final Map<String, Map.Entry<String, Long>> threads;

    private ThreadCpuSnapshot(Map<String, Map.Entry<String, Long>> threads) {
        this.threads = threads;
    }

    static ThreadCpuSnapshot take() {
        Map<String, Map.Entry<String, Long>> threads = new HashMap<>();
        if (!Files.isDirectory(TASKS)) {
            return new ThreadCpuSnapshot(threads);
        }
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(TASKS)) {
            for (Path task : tasks) {
                String stat;
                try {
                    stat = Files.readString(task.resolve("stat"), StandardCharsets.UTF_8);
                } catch (IOException gone) {
                    continue; // the thread ended meanwhile
                }
                // "pid (name) state ...": the name may hold spaces and parentheses, so split after the last ')'.
                int close = stat.lastIndexOf(')');
                String name = stat.substring(stat.indexOf('(') + 1, close);
                String[] fields = stat.substring(close + 2).split(" ");
                long ticks = Long.parseLong(fields[11]) + Long.parseLong(fields[12]); // utime, stime
                threads.put(task.getFileName().toString(), Map.entry(name, ticks));
            }
        } catch (IOException e) {
            return new ThreadCpuSnapshot(new HashMap<>());
        }
        return new ThreadCpuSnapshot(threads);
    }

    /**
     * CPU seconds per thread group since {@code earlier}, the groups being thread names with their numbers
     * replaced by {@code N}, largest first; threads that ended in between are not counted.
     */
    Map<String, Double> secondsSince(ThreadCpuSnapshot earlier) {
        Map<String, Double> groups = new TreeMap<>();
        threads.forEach((tid, now) -> {
            Map.Entry<String, Long> before = earlier.threads.get(tid);
            long ticks = now.getValue() - (before != null && before.getKey().equals(now.getKey()) ? before.getValue() : 0);
            if (ticks > 0) {
                groups.merge(DIGITS.matcher(now.getKey()).replaceAll("N"), ticks / TICKS_PER_SECOND, Double::sum);
            }
        });
        Map<String, Double> sorted = new LinkedHashMap<>();
        groups.entrySet().stream().sorted(Map.Entry.<String, Double>comparingByValue().reversed())
                .forEach(e -> sorted.put(e.getKey(), e.getValue()));
        return sorted;
    }
}
