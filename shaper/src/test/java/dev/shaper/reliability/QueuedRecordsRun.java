package dev.shaper.reliability;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperConfig;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.FreePort;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A million records queued in one instance: what they cost (RSS, heap, state directory, changelogs), and how long
 * an instance killed with SIGKILL takes, restarted on the same state directory, to run again with every one of
 * them back in its queues.
 *
 * <p>K keys with Q + 1 records each, at a rate so low (0.001 per key and second) that each key's first record
 * passes and the others wait, about 17 minutes for the next: nothing else leaves during the run, so the queued
 * count must equal what was sent minus what was read back from the output and rejected topics, before the kill
 * and after the restore.
 *
 * <p>Properties: {@code reliability.queued.keys} (1,000), {@code reliability.queued.per.key} (1,000 queued per
 * key), {@code reliability.queued.partitions} (32), {@code reliability.queued.payload} (100 bytes per value),
 * {@code reliability.queued.child.opts} ({@code -Xmx512m -XX:+ExitOnOutOfMemoryError}),
 * {@code reliability.sample.ms} (5,000).
 */
class QueuedRecordsRun {

    private static final Logger LOG = LoggerFactory.getLogger(QueuedRecordsRun.class);
    private static final String CHILD_OPTS = "-Xmx512m -XX:+ExitOnOutOfMemoryError";
    /** Per key: one record every 1,000 s. */
    private static final double RATE = 0.001;

    private final int keys = HeavyRuns.integer("reliability.queued.keys", 1_000);
    private final int queuedPerKey = HeavyRuns.integer("reliability.queued.per.key", 1_000);
    private final int partitions = HeavyRuns.integer("reliability.queued.partitions", 32);
    private final int payload = HeavyRuns.integer("reliability.queued.payload", 100);
    private final long sampleMs = HeavyRuns.longValue("reliability.sample.ms", 5_000);

    private ShaperProcess shaper;

    @Test
    void millionQueuedRecordsSurviveAKill() throws Exception {
        Path dir = HeavyRuns.freshWorkDir("queued-records");
        Path stateDir = dir.resolve("state");
        Path log = dir.resolve("shaper.log");
        String app = "queued-records";
        List<String> childOpts = HeavyRuns.jvmOptions("reliability.queued.child.opts", CHILD_OPTS);
        try (KafkaBroker broker = KafkaBroker.start()) {
            broker.createTopics(partitions, "qr-in", "qr-out", "qr-rejected");
            Map<String, String> settings = HeavyRuns.baseSettings(broker.bootstrapServers(), app, stateDir, "qr");
            settings.put(ShaperConfig.SHAPING_RATE_CONFIG, Double.toString(RATE));
            settings.put(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, Integer.toString(queuedPerKey + 1));
            // The last record of a key waits queuedPerKey / RATE seconds.
            settings.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG,
                    Long.toString((long) ((queuedPerKey + 1) / RATE * 1000)));
            // A killed instance's member leaves the group only when its session times out.
            settings.put("session.timeout.ms", "6000");
            settings.put("heartbeat.interval.ms", "1000");
            Path settingsFile = HeavyRuns.settingsFile(dir, "shaper", settings);
            int port = FreePort.find();
            shaper = ShaperProcess.start("first", settingsFile, log, childOpts, port);
            try (ChildSampler sampler = new ChildSampler(() -> shaper, port, stateDir, sampleMs);
                 TopicCounter counter = new TopicCounter(broker.bootstrapServers(), "qr-out", "qr-rejected");
                 Admin admin = broker.admin()) {
                awaitReady(port, Duration.ofSeconds(120));
                sampler.expectAnswers(true);
                sampler.progress(() -> ", read back " + counter.total());

                // Given: every record sent; each key's first passes, the others wait
                List<RecordId> ids = Workload.interleaved(keys, 0, queuedPerKey + 1);
                long sendStart = System.nanoTime();
                Workload.send(broker.bootstrapServers(), "qr-in", ids, payload);
                double sendSeconds = (System.nanoTime() - sendStart) / 1e9;
                long sent = ids.size();
                ids = null; // a million ids: not needed any more
                Await.until(() -> "queued " + queued(port) + ", read back " + counter.total() + " of " + sent,
                        Duration.ofMinutes(10), () -> {
                            assertAlive();
                            long queued = queued(port);
                            return queued > 0 && queued + counter.total() == sent;
                        });
                double queuedSeconds = (System.nanoTime() - sendStart) / 1e9;
                // The queues are in RocksDB and the changelogs once a commit has written them.
                long beforeCommitted = HeavyRuns.topicBytes(admin, HeavyRuns.changelogPrefix(app));
                HeavyRuns.Sample before = sampler.sampleNow();
                long queuedBefore = before.queueRecords();
                long readBefore = counter.total();
                LOG.info("{} records queued, {} read back; killing the shaper", queuedBefore, readBefore);

                // When: killed, and restarted on the same state directory
                long killedAt = System.nanoTime();
                sampler.expectAnswers(false);
                shaper.kill();
                // A restart restores from the local RocksDB and only the changelog's tail: the changelog size is
                // what a fresh instance (or a lost disk) would have to read.
                long changelogs = HeavyRuns.topicBytes(admin, HeavyRuns.changelogPrefix(app));
                shaper = ShaperProcess.start("restarted", settingsFile, log, childOpts, port);
                long restartedAt = System.nanoTime();
                awaitReady(port, Duration.ofMinutes(10));
                double readySeconds = (System.nanoTime() - restartedAt) / 1e9;
                sampler.expectAnswers(true);
                Await.until(() -> "queued after the restart " + queued(port) + " of " + queuedBefore,
                        Duration.ofMinutes(10), () -> {
                            assertAlive();
                            return queued(port) + counter.total() == sent;
                        });
                long restoredAt = System.nanoTime();
                double restoredSeconds = (restoredAt - restartedAt) / 1e9;
                HeavyRuns.Sample after = sampler.sampleNow();
                long queuedAfter = after.queueRecords();

                // Then
                new HeavyRuns.Figures("QueuedRecordsRun")
                        .add("records sent (keys x per key)", HeavyRuns.count(sent) + " (" + keys + " x "
                                + (queuedPerKey + 1) + ", " + payload + "-byte values)")
                        .add("input partitions", partitions)
                        .add("child JVM options", String.join(" ", childOpts))
                        .add("sent in / all queued after", String.format("%.1f s / %.1f s", sendSeconds,
                                queuedSeconds))
                        .add("queued before the kill", HeavyRuns.count(queuedBefore))
                        .add("read back (shaped + rejected)", HeavyRuns.count(counter.count("qr-out")) + " + "
                                + HeavyRuns.count(counter.count("qr-rejected")))
                        .add("RSS before the kill (peak)", HeavyRuns.mb(before.rssBytes()) + " ("
                                + HeavyRuns.mb(before.peakRssBytes()) + ")")
                        .add("PSS before the kill", HeavyRuns.mb(before.pssBytes()))
                        .add("heap used before the kill (max sampled)", HeavyRuns.mb(before.heapUsedBytes())
                                + " (" + HeavyRuns.mb(sampler.maxHeap()) + ")")
                        .add("state dir before the kill", HeavyRuns.mb(before.stateBytes()))
                        .add("changelog topics on the broker", HeavyRuns.mb(changelogs) + " ("
                                + HeavyRuns.mb(beforeCommitted) + " when the queues were complete)")
                        .add("restart: ready (/health/ready 200) after", String.format("%.1f s", readySeconds))
                        .add("restart: every record queued again after", String.format("%.1f s", restoredSeconds))
                        .add("restart: kill to restored", String.format("%.1f s", (restoredAt - killedAt) / 1e9))
                        .add("queued after the restore", HeavyRuns.count(queuedAfter))
                        .add("lost (sent - queued - read back)", sent - queuedAfter - counter.total())
                        .add("RSS after the restore (peak)", HeavyRuns.mb(after.rssBytes()) + " ("
                                + HeavyRuns.mb(after.peakRssBytes()) + ")")
                        .add("heap used after the restore", HeavyRuns.mb(after.heapUsedBytes()))
                        .add("state dir after the restore", HeavyRuns.mb(after.stateBytes()))
                        .add("max RSS, max PSS, max heap (all samples)", HeavyRuns.mb(sampler.maxRss()) + ", "
                                + HeavyRuns.mb(sampler.maxPss()) + ", " + HeavyRuns.mb(sampler.maxHeap()))
                        .add("samples (/metrics unanswered while ready)", sampler.samples() + " ("
                                + sampler.unanswered() + ")")
                        .write();

                assertThat(queuedAfter).as("queued after the restore").isEqualTo(queuedBefore);
                assertThat(queuedAfter + counter.total()).as("queued + read back").isEqualTo(sent);
                assertThat(counter.count("qr-out")).as("shaped: each key's first record, once").isEqualTo(keys);
                assertThat(counter.count("qr-rejected")).as("rejected").isZero();
            } finally {
                shaper.close();
            }
        }
    }

    /** The child's queued-records gauge, -1 while it does not answer. */
    private static long queued(int port) {
        return HeavyRuns.gauge(port, "shaper_queue_records");
    }

    private void awaitReady(int port, Duration timeout) {
        Await.until("the shaper is ready", timeout, () -> {
            assertAlive();
            return HeavyRuns.status(port, "/health/ready") == 200;
        });
    }

    private void assertAlive() {
        if (!shaper.isAlive()) {
            throw new AssertionError(shaper + " died; see target/reliability/queued-records/shaper.log");
        }
    }
}
