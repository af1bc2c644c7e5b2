package dev.shaper.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperConfig;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.FreePort;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.KeyArrivals;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.VerificationReport;
import dev.shaper.testsupport.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A long run under steady load with the shaper killed (SIGKILL) at a fixed interval and restarted at once on the
 * same state directory: at the end every record must have been read back exactly once, each key's in order, and
 * no key may have had more than rate + 1 records released in any second, restarts included.
 *
 * <p>A producer sends, every {@code burst.ms}, a burst of identifiable records ({@link RecordId}) to each key,
 * {@code load} times what the key's rate releases in that time: each key's queue fills at every burst and
 * drains before the next, and after a kill the backlog of the outage drains on top of it.
 *
 * <p>Properties: {@code reliability.soak.minutes} (30), {@code reliability.soak.kill.minutes} (5),
 * {@code reliability.soak.keys} (200), {@code reliability.soak.rate} (10 per key and second),
 * {@code reliability.soak.load} (0.9), {@code reliability.soak.burst.ms} (2,000),
 * {@code reliability.soak.partitions} (8), {@code reliability.soak.child.opts} ({@code -Xmx256m
 * -XX:+ExitOnOutOfMemoryError}), {@code reliability.sample.ms} (5,000).
 */
class SoakRun {

    private static final Logger LOG = LoggerFactory.getLogger(SoakRun.class);
    private static final String CHILD_OPTS = "-Xmx256m -XX:+ExitOnOutOfMemoryError";

    private final double minutes = HeavyRuns.decimal("reliability.soak.minutes", 30);
    private final double killMinutes = HeavyRuns.decimal("reliability.soak.kill.minutes", 5);
    private final int keys = HeavyRuns.integer("reliability.soak.keys", 200);
    private final int rate = HeavyRuns.integer("reliability.soak.rate", 10);
    private final double load = HeavyRuns.decimal("reliability.soak.load", 0.9);
    private final long burstMs = HeavyRuns.longValue("reliability.soak.burst.ms", 2_000);
    private final int partitions = HeavyRuns.integer("reliability.soak.partitions", 8);
    private final long sampleMs = HeavyRuns.longValue("reliability.sample.ms", 5_000);

    private volatile ShaperProcess shaper;

    @Test
    void soakWithKills() throws Exception {
        Path dir = HeavyRuns.freshWorkDir("soak");
        Path stateDir = dir.resolve("state");
        Path log = dir.resolve("shaper.log");
        String app = "soak";
        List<String> childOpts = HeavyRuns.jvmOptions("reliability.soak.child.opts", CHILD_OPTS);
        int perBurst = (int) Math.round(rate * load * burstMs / 1000.0);
        try (KafkaBroker broker = KafkaBroker.start()) {
            broker.createTopics(partitions, "soak-in", "soak-rejected");
            broker.createTopics(partitions, KafkaBroker.APPEND_TIME, "soak-out");
            Map<String, String> settings = HeavyRuns.baseSettings(broker.bootstrapServers(), app, stateDir, "soak");
            // As in CrashSafetyIT: a fine tick and poll, queues as long as the run needs.
            settings.put(ShaperConfig.SHAPING_RATE_CONFIG, Integer.toString(rate));
            settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, Long.toString(Math.max(1, 1000 / (2L * rate))));
            settings.put(StreamsConfig.POLL_MS_CONFIG, "1");
            settings.put(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, "1000000");
            settings.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, "3600000");
            settings.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, "true");
            settings.put("session.timeout.ms", "6000");
            settings.put("heartbeat.interval.ms", "1000");
            Path settingsFile = HeavyRuns.settingsFile(dir, "shaper", settings);
            int port = FreePort.find();
            List<String> restarts = new ArrayList<>();
            shaper = ShaperProcess.start("start-0", settingsFile, log, childOpts, port);
            try (ChildSampler sampler = new ChildSampler(() -> shaper, port, stateDir, sampleMs);
                 CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                         "soak-out", "soak-rejected");
                 Admin admin = broker.admin();
                 SteadyProducer producer = new SteadyProducer(broker.bootstrapServers(), perBurst)) {
                awaitReady(port, Duration.ofSeconds(120));
                sampler.expectAnswers(true);
                sampler.progress(() -> ", sent " + producer.sent() + ", read back "
                        + collector.snapshot().size());
                long start = System.nanoTime();
                long end = start + (long) (minutes * 60e9);
                long killEvery = (long) (killMinutes * 60e9);
                producer.start();

                // When: killed every killEvery, restarted at once on the same state directory
                int kills = 0;
                for (long nextKill = start + killEvery; nextKill < end; nextKill += killEvery) {
                    long at = nextKill;
                    Await.until("the next kill", Duration.ofNanos(killEvery).plusMinutes(1), () -> {
                        assertAlive();
                        producer.rethrow();
                        return System.nanoTime() >= at;
                    });
                    int outputAtKill = collector.outputCount();
                    sampler.expectAnswers(false);
                    shaper.kill();
                    kills++;
                    long restartedAt = System.nanoTime();
                    shaper = ShaperProcess.start("start-" + kills, settingsFile, log, childOpts, port);
                    awaitReady(port, Duration.ofMinutes(5));
                    double ready = (System.nanoTime() - restartedAt) / 1e9;
                    sampler.expectAnswers(true);
                    Await.until("output after restart " + kills, Duration.ofMinutes(5), () -> {
                        assertAlive();
                        return collector.outputCount() > outputAtKill;
                    });
                    double output = (System.nanoTime() - restartedAt) / 1e9;
                    String line = String.format("kill %d at %.1f min: ready after %.1f s, new output after %.1f s",
                            kills, (restartedAt - start) / 60e9, ready, output);
                    LOG.info(line);
                    restarts.add(line);
                }
                Await.until("the end of the soak", Duration.ofNanos(Math.max(0, end - System.nanoTime()))
                        .plusMinutes(1), () -> {
                            assertAlive();
                            producer.rethrow();
                            return System.nanoTime() >= end;
                        });
                producer.stop();
                List<RecordId> ids = producer.ids();
                double soakMinutes = (System.nanoTime() - start) / 60e9;
                LOG.info("soak over after {} min, {} kills, {} records sent; waiting for all of them",
                        String.format("%.1f", soakMinutes), kills, ids.size());
                long drainStart = System.nanoTime();
                collector.awaitAccountedFor(ids, Duration.ofMinutes(20));
                double drainSeconds = (System.nanoTime() - drainStart) / 1e9;

                // Then
                HeavyRuns.Sample last = sampler.sampleNow();
                long changelogs = HeavyRuns.topicBytes(admin, HeavyRuns.changelogPrefix(app));
                List<CollectedRecord> read = collector.snapshot();
                VerificationReport report = ShapedOutputVerifier.verify(ids, read);
                LOG.info("soak verification:\n{}", report.summary().lines().limit(5)
                        .reduce((a, b) -> a + "\n" + b).orElse(""));
                long overRate = report.keys().values().stream().filter(k -> k.maxInWindow() > rate + 1).count();
                HeavyRuns.Figures figures = new HeavyRuns.Figures("SoakRun")
                        .add("duration (planned)", String.format("%.1f min (%.1f min)", soakMinutes, minutes))
                        .add("kills (SIGKILL, every)", kills + String.format(" (%.1f min)", killMinutes))
                        .add("keys, rate per key, load", keys + ", " + rate + "/s, " + load + " (bursts of "
                                + perBurst + " per key every " + burstMs + " ms)")
                        .add("input partitions", partitions)
                        .add("child JVM options", String.join(" ", childOpts))
                        .add("records sent", HeavyRuns.count(ids.size()))
                        .add("all read back after the producer stopped", String.format("%.1f s", drainSeconds))
                        .add("shaped / rejected", HeavyRuns.count(read.stream().filter(CollectedRecord::isOutput)
                                .count()) + " / " + report.rejectedCount() + " " + report.rejectedByReason())
                        .add("lost", report.missing().size())
                        .add("duplicated", report.duplicates().size())
                        .add("unexpected", report.unexpected().size())
                        .add("order violations", report.orderViolations().size())
                        .add("max per key in any 1-s window (bound)", report.maxInWindow() + " (" + (rate + 1) + ")")
                        .add("keys over the bound", overRate)
                        .add("max queued ms (of any record)", report.keys().values().stream()
                                .mapToLong(KeyArrivals::maxQueuedMs).max().orElse(-1))
                        .add("max RSS, max heap used (all instances)", HeavyRuns.mb(sampler.maxRss()) + ", "
                                + HeavyRuns.mb(sampler.maxHeap()))
                        .add("state dir at the end (max)", HeavyRuns.mb(last.stateBytes()) + " ("
                                + HeavyRuns.mb(sampler.maxStateBytes()) + ")")
                        .add("changelog topics on the broker", HeavyRuns.mb(changelogs))
                        .add("samples (/metrics unanswered while ready)", sampler.samples() + " ("
                                + sampler.unanswered() + ")");
                for (String restart : restarts) {
                    figures.add("restart", restart);
                }
                figures.write();

                assertThat(report.missing()).as("lost; %s", report.summary()).isEmpty();
                assertThat(report.duplicates()).as("duplicated").isEmpty();
                assertThat(report.unexpected()).as("unexpected").isEmpty();
                assertThat(report.orderViolations()).as("order violations").isEmpty();
                assertThat(report.rejectedCount()).as("rejected").isZero();
                assertThat(report.maxInWindow()).as("most records of a key in one second").isLessThanOrEqualTo(
                        rate + 1);
            } finally {
                shaper.close();
            }
        }
    }

    private void awaitReady(int port, Duration timeout) {
        Await.until("the shaper is ready", timeout, () -> {
            assertAlive();
            return HeavyRuns.status(port, "/health/ready") == 200;
        });
    }

    private void assertAlive() {
        ShaperProcess p = shaper;
        if (!p.isAlive()) {
            throw new AssertionError(p + " died on its own; see target/reliability/soak/shaper.log");
        }
    }

    /**
     * Every {@code burstMs}, {@code perBurst} records to each key, interleaved, with consecutive sequence numbers
     * per key; idempotent with {@code acks=all}, so each key's records are in the topic in sequence order.
     */
    private final class SteadyProducer implements AutoCloseable {
        private final KafkaProducer<String, byte[]> producer;
        private final int perBurst;
        private final List<RecordId> ids = new ArrayList<>();
        private final long[] nextSeq = new long[keys];
        private final AtomicReference<Exception> failed = new AtomicReference<>();
        private final AtomicLong acked = new AtomicLong();
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "soak-producer");
            t.setDaemon(true);
            return t;
        });

        SteadyProducer(String bootstrapServers, int perBurst) {
            this.perBurst = perBurst;
            this.producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                    ProducerConfig.ACKS_CONFIG, "all",
                    ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true,
                    ProducerConfig.LINGER_MS_CONFIG, 5),
                    new StringSerializer(), new ByteArraySerializer());
        }

        void start() {
            timer.scheduleAtFixedRate(this::burst, 0, burstMs, TimeUnit.MILLISECONDS);
        }

        private void burst() {
            try {
                List<RecordId> burst = new ArrayList<>(keys * perBurst);
                for (int i = 0; i < perBurst; i++) {
                    for (int k = 0; k < keys; k++) {
                        burst.add(new RecordId(Workload.key(k), nextSeq[k]++));
                    }
                }
                for (RecordId id : burst) {
                    producer.send(new ProducerRecord<>("soak-in", id.key(), id.toValue()), (md, e) -> {
                        if (e != null) {
                            failed.compareAndSet(null, e);
                        } else {
                            acked.incrementAndGet();
                        }
                    });
                }
                synchronized (ids) {
                    ids.addAll(burst);
                }
            } catch (RuntimeException e) {
                failed.compareAndSet(null, e);
            }
        }

        long sent() {
            synchronized (ids) {
                return ids.size();
            }
        }

        void rethrow() {
            if (failed.get() != null) {
                throw new IllegalStateException("the soak producer failed", failed.get());
            }
        }

        /** Stops sending, and waits until the broker has acknowledged everything sent. */
        void stop() throws InterruptedException {
            timer.shutdown();
            if (!timer.awaitTermination(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException("the soak producer's last burst did not end");
            }
            producer.flush();
            rethrow();
            assertThat(acked.get()).as("records acknowledged").isEqualTo(ids().size());
        }

        List<RecordId> ids() {
            synchronized (ids) {
                return List.copyOf(ids);
            }
        }

        @Override
        public void close() {
            timer.shutdownNow();
            producer.close(Duration.ofSeconds(10));
        }
    }
}
