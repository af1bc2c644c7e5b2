package dev.shaper.reliability;

import dev.shaper.ShaperConfig;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.PrometheusText;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the heavy runs of the {@code reliability} profile share: their settings (system properties, so that a
 * smoke run can shrink them), the measurements of a shaper child JVM, the size of its changelogs, and the
 * figures file every run appends its results to.
 */
final class HeavyRuns {

    private static final Logger LOG = LoggerFactory.getLogger(HeavyRuns.class);

    /** Where each run keeps its state directory and its shaper's log: {@code target/reliability/<run>/}. */
    static final Path WORK = Path.of("target", "reliability");

    private HeavyRuns() {
    }

    static int integer(String name, int defaultValue) {
        return Integer.parseInt(System.getProperty(name, Integer.toString(defaultValue)).replace("_", ""));
    }

    static long longValue(String name, long defaultValue) {
        return Long.parseLong(System.getProperty(name, Long.toString(defaultValue)).replace("_", ""));
    }

    static double decimal(String name, double defaultValue) {
        return Double.parseDouble(System.getProperty(name, Double.toString(defaultValue)));
    }

    static String text(String name, String defaultValue) {
        return System.getProperty(name, defaultValue);
    }

    /** JVM options from a space-separated property. */
    static List<String> jvmOptions(String name, String defaultValue) {
        return Arrays.stream(text(name, defaultValue).trim().split("\\s+")).filter(s -> !s.isEmpty()).toList();
    }

    /** A fresh working directory for one run: {@code target/reliability/<run>}, emptied. */
    static Path freshWorkDir(String run) {
        Path dir = WORK.resolve(run).toAbsolutePath();
        try {
            if (Files.exists(dir)) {
                Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                    @Override
                    public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) throws IOException {
                        Files.delete(file);
                        return FileVisitResult.CONTINUE;
                    }

                    @Override
                    public FileVisitResult postVisitDirectory(Path d, IOException e) throws IOException {
                        Files.delete(d);
                        return FileVisitResult.CONTINUE;
                    }
                });
            }
            return Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare " + dir, e);
        }
    }

    /**
     * Writes the shaper's settings file; {@code settings} are on top of the shaper's own defaults, and any system
     * property {@code reliability.setting.<key>} sets {@code <key>} on top of those (e.g. to compare a default).
     */
    static Path settingsFile(Path dir, String name, Map<String, String> settings) throws IOException {
        Properties p = new Properties();
        p.putAll(settings);
        String prefix = "reliability.setting.";
        System.getProperties().stringPropertyNames().stream().filter(k -> k.startsWith(prefix))
                .forEach(k -> p.setProperty(k.substring(prefix.length()), System.getProperty(k)));
        Path file = dir.resolve(name + ".properties");
        try (Writer w = Files.newBufferedWriter(file)) {
            p.store(w, name);
        }
        return file;
    }

    /** Bytes of the files under {@code dir} (RocksDB's files come and go while it runs: those are skipped). */
    static long directorySize(Path dir) {
        AtomicLong size = new AtomicLong();
        try {
            Files.walkFileTree(dir, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                    size.addAndGet(attrs.size());
                    return FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
                    if (e instanceof NoSuchFileException) {
                        return FileVisitResult.CONTINUE;
                    }
                    throw e;
                }
            });
        } catch (NoSuchFileException e) {
            return 0;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot measure " + dir, e);
        }
        return size.get();
    }

    /** The bytes on the brokers' disks of the topics whose names start with {@code prefix} (the changelogs). */
    static long topicBytes(Admin admin, String prefix) {
        try {
            List<Integer> brokers = admin.describeCluster().nodes().get(30, TimeUnit.SECONDS).stream()
                    .map(Node::id).toList();
            long bytes = 0;
            for (Map<String, LogDirDescription> dirs : admin.describeLogDirs(brokers).allDescriptions()
                    .get(30, TimeUnit.SECONDS).values()) {
                for (LogDirDescription dir : dirs.values()) {
                    for (Map.Entry<TopicPartition, ReplicaInfo> e : dir.replicaInfos().entrySet()) {
                        if (e.getKey().topic().startsWith(prefix)) {
                            bytes += e.getValue().size();
                        }
                    }
                }
            }
            return bytes;
        } catch (Exception e) {
            throw new IllegalStateException("cannot describe the brokers' log directories", e);
        }
    }

    /** The changelog topics of the shaper with this application id. */
    static String changelogPrefix(String applicationId) {
        return applicationId + "-";
    }

    /** Settings every heavy run's shaper starts from. */
    static Map<String, String> baseSettings(String bootstrapServers, String applicationId, Path stateDir,
                                            String topicPrefix) {
        return new java.util.HashMap<>(Map.of(
                "bootstrap.servers", bootstrapServers,
                "application.id", applicationId,
                "state.dir", stateDir.toString(),
                ShaperConfig.INPUT_TOPIC_CONFIG, topicPrefix + "-in",
                ShaperConfig.OUTPUT_TOPIC_CONFIG, topicPrefix + "-out",
                ShaperConfig.REJECTED_TOPIC_CONFIG, topicPrefix + "-rejected"));
    }

    /** GET on the child's HTTP server: the status, -1 if it does not answer. */
    static int status(int port, String path) {
        return Http.get(port, path).status();
    }

    /** A gauge from the child's {@code /metrics}, -1 while it does not answer. */
    static long gauge(int port, String name) {
        Http.Response metrics = Http.get(port, "/metrics");
        return metrics.status() == 200 ? (long) PrometheusText.value(metrics.body(), name) : -1;
    }

    /** One look at a shaper child JVM. Sizes in bytes; -1 where the child did not answer. */
    record Sample(long rssBytes, long peakRssBytes, long heapUsedBytes, long cacheKeys, long queueRecords,
                  long stateBytes, long pssBytes) {
    }

    /**
     * Measures a child: its resident memory from {@code /proc/<pid>/status} (VmRSS, and VmHWM, the peak since its
     * start) and its proportional set size from {@code /proc/<pid>/smaps_rollup} (Pss: a page mapped several times
     * counts once, which is what the container's memory counts; ZGC on JDK 17 maps its heap three times, and VmRSS
     * counts each mapping), the heap in use and the shaper's gauges from its {@code /metrics}, its state directory's size.
     */
    static Sample sample(long pid, int httpPort, Path stateDir) {
        long rss = -1;
        long peak = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = kilobytes(line);
                } else if (line.startsWith("VmHWM:")) {
                    peak = kilobytes(line);
                }
            }
        } catch (IOException e) {
            // gone (killed, or exited): -1
        }
        long pss = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "smaps_rollup"))) {
                if (line.startsWith("Pss:")) {
                    pss = kilobytes(line);
                }
            }
        } catch (IOException e) {
            // gone, or a kernel without smaps_rollup: -1
        }
        long heap = -1;
        long cacheKeys = -1;
        long queued = -1;
        Http.Response metrics = Http.get(httpPort, "/metrics");
        if (metrics.status() == 200) {
            heap = (long) PrometheusText.sum(metrics.body(), "jvm_memory_used_bytes", Map.of("area", "heap"));
            cacheKeys = (long) PrometheusText.value(metrics.body(), "shaper_state_cache_keys");
            queued = (long) PrometheusText.value(metrics.body(), "shaper_queue_records");
        }
        return new Sample(rss, peak, heap, cacheKeys, queued, directorySize(stateDir), pss);
    }

    private static long kilobytes(String statusLine) {
        String[] parts = statusLine.trim().split("\\s+");
        return Long.parseLong(parts[1]) * 1024;
    }

    static String mb(long bytes) {
        return bytes < 0 ? "n/a" : String.format("%.1f MB", bytes / 1_048_576.0);
    }

    static String count(long n) {
        return String.format("%,d", n);
    }

    /** The 1-, 5- and 15-minute load averages of the machine: the runs share it with whatever else runs. */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (IOException e) {
            return "n/a";
        }
    }

    /** The figures of one run: printed, and appended to the figures file ({@code -Dreliability.figures}). */
    static final class Figures {
        private final String run;
        private final List<String> lines = new ArrayList<>();

        Figures(String run) {
            this.run = run;
        }

        Figures add(String name, Object value) {
            lines.add(String.format("  %-44s %s", name, value));
            return this;
        }

        /** Prints the figures and appends them to the figures file. */
        void write() {
            String block = "== " + run + " (" + Instant.now() + ", " + Runtime.getRuntime().availableProcessors()
                    + " cores, load average at the end " + loadAverage() + ")\n" + String.join("\n", lines) + "\n";
            LOG.info("Figures:\n{}", block);
            Path file = Path.of(text("reliability.figures", WORK.resolve("figures.txt").toString()));
            try {
                if (file.toAbsolutePath().getParent() != null) {
                    Files.createDirectories(file.toAbsolutePath().getParent());
                }
                Files.writeString(file, block + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                        StandardOpenOption.APPEND);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot write " + file, e);
            }
        }
    }
}
