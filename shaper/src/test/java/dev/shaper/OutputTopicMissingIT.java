package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.cluster.OutputTopicsWatch;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.PacedProducer;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.streams.KafkaStreams;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The output topic, or a changelog topic, deleted under a running instance, on a real broker (topics are not created
 * on demand): the instance notices within a few seconds, turns not ready naming the topic and pauses (nothing
 * released, nothing taken from the input); once the topic is created again it resumes, and every record is shaped
 * once. A topic that stays missing stops the instance with exit code 4.
 */
class OutputTopicMissingIT {

    private static final Logger LOG = LoggerFactory.getLogger(OutputTopicMissingIT.class);
    /**
     * What a deleted topic may take with it per key, written and not yet read: a second at the key's 10/s, where the
     * reader runs a commit interval and a fetch behind the writes.
     */
    private static final int MAX_UNREAD_PER_KEY = 10;

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(120)
    void shouldPauseWhileTheOutputTopicIsMissingAndResumeWithoutLossWhenItIsBack() throws Exception {
        // Given: one running instance
        String name = "output-missing";
        try (Admin admin = admin();
             ShaperInstance shaper = ShaperInstance.start(settings(name, 20.0, 60_000L))) {
            int port = awaitReady(shaper);

            // When: the output topic is deleted
            admin.deleteTopics(List.of(name + "-out")).all().get();

            // Then: not ready within a few of the watch's checks, naming the topic
            Await.until("not ready", Duration.ofSeconds(5 * OutputTopicsWatch.PERIOD.toSeconds()),
                    () -> Http.get(port, "/health/ready").status() != 200);
            assertThat(Http.get(port, "/health/ready").body()).contains(name + "-out", "missing");

            // And when: records arrive while it is missing
            List<PacedProducer.Sent> sent = PacedProducer.send(broker.bootstrapServers(), name + "-in", 2, 50,
                    Duration.ofSeconds(2), Map.of());
            Thread.sleep(2 * OutputTopicsWatch.PERIOD.toMillis()); // a paused instance takes nothing meanwhile
            double releasedWhileMissing = shaper.functionCount(ShaperMetrics.RELEASED, null, null)
                    + shaper.functionCount(ShaperMetrics.PASSED, null, null);

            // Then: nothing was released into the void
            assertThat(releasedWhileMissing).isZero();

            // And when: the topic is created again
            admin.createTopics(List.of(new NewTopic(name + "-out", 1, (short) 1))).all().get();
            Await.until("ready again", Duration.ofSeconds(5 * OutputTopicsWatch.PERIOD.toSeconds()),
                    () -> Http.get(port, "/health/ready").status() == 200);

            // Then: every record sent meanwhile is shaped, once
            try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                    name + "-out", name + "-rejected")) {
                collector.awaitAccountedFor(PacedProducer.ids(sent), Duration.ofSeconds(60));
                List<CollectedRecord> collected = collector.snapshot();
                assertThat(collected).allMatch(CollectedRecord::isOutput)
                        .extracting(CollectedRecord::id)
                        .containsExactlyInAnyOrderElementsOf(PacedProducer.ids(sent));
            }
        }
    }

    @Test
    @Timeout(120)
    void shouldLoseOnlyWhatTheDeletedOutputTopicHeldUnreadWhenItIsDeletedWhileRecordsAreReleased() throws Exception {
        // Given: one running instance releasing a queue at 10/s per key, its output read as it is written
        String name = "output-deleted-busy";
        try (Admin admin = admin();
             ShaperInstance shaper = ShaperInstance.start(settings(name, 10.0, 120_000L))) {
            int port = awaitReady(shaper);
            List<CollectedRecord> readFromTheOldTopic;
            try (CommittedRecordCollector old = CommittedRecordCollector.start(broker.bootstrapServers(),
                    name + "-out", name + "-rejected")) {
                List<PacedProducer.Sent> sent = PacedProducer.send(broker.bootstrapServers(), name + "-in", 2, 100,
                        Duration.ofSeconds(2), Map.of());
                old.await("releases under way", Duration.ofSeconds(30), records -> records.size() >= 40);

                // When: the output topic is deleted while the queues are released
                admin.deleteTopics(List.of(name + "-out")).all().get();
                Await.until("not ready", Duration.ofSeconds(5 * OutputTopicsWatch.PERIOD.toSeconds()),
                        () -> Http.get(port, "/health/ready").status() != 200);
                readFromTheOldTopic = old.snapshot().stream().filter(CollectedRecord::isOutput).toList();

                // And: created again
                admin.createTopics(List.of(new NewTopic(name + "-out", 1, (short) 1))).all().get();
                Await.until("ready again", Duration.ofSeconds(5 * OutputTopicsWatch.PERIOD.toSeconds()),
                        () -> Http.get(port, "/health/ready").status() == 200);

                // Then: each record is shaped once, in the old topic or the new, but for what the old one held
                // unread when it was deleted: per key, a run right after the last record read from it
                try (CommittedRecordCollector recreated = CommittedRecordCollector.start(
                        broker.bootstrapServers(), name + "-out", name + "-rejected")) {
                    Await.until("the queues drained", Duration.ofSeconds(60),
                            () -> shaper.gauge(ShaperMetrics.QUEUE_RECORDS, null, null) == 0);
                    // (a record still to be read shows as a second gap: the wait ends when none is left)
                    Await.until(() -> "what is missing: " + missing(sent, readFromTheOldTopic, recreated.snapshot()),
                            Duration.ofSeconds(30), () -> onlyWhatTheOldTopicHeldUnread(
                                    missing(sent, readFromTheOldTopic, recreated.snapshot()), readFromTheOldTopic));
                    List<CollectedRecord> all = new ArrayList<>(readFromTheOldTopic);
                    all.addAll(recreated.snapshot());
                    assertThat(all).allMatch(CollectedRecord::isOutput);
                    assertThat(all).extracting(CollectedRecord::id).doesNotHaveDuplicates();
                    LOG.info("output topic deleted under releases: {} read from it, {} from the new one, missing {}",
                            readFromTheOldTopic.size(), all.size() - readFromTheOldTopic.size(),
                            missing(sent, readFromTheOldTopic, recreated.snapshot()));
                }
            }
        }
    }

    /**
     * The settings of an instance named {@code name}, at {@code ratePerSecond} per key and {@code maxDelayMs}, on
     * topics of its own, created here: two input partitions.
     */
    private static Map<String, Object> settings(String name, double ratePerSecond, long maxDelayMs) {
        broker.createTopics(2, name + "-in");
        broker.createTopics(1, name + "-out", name + "-rejected");
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), name);
        ShaperInstance.useTopics(settings, name);
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, ratePerSecond);
        settings.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, maxDelayMs);
        return settings;
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()));
    }

    /** Waits until {@code shaper} runs its tasks and is ready; its HTTP port. */
    private static int awaitReady(ShaperInstance shaper) {
        ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
        int port = shaper.application().httpPort();
        Await.until("ready", Duration.ofSeconds(30), () -> Http.get(port, "/health/ready").status() == 200);
        return port;
    }

    /** The sequence numbers of {@code sent} read from neither topic, by key. */
    private static Map<String, List<Long>> missing(List<PacedProducer.Sent> sent, List<CollectedRecord> fromOld,
                                                   List<CollectedRecord> fromNew) {
        Set<RecordId> shaped = new HashSet<>();
        fromOld.forEach(r -> shaped.add(r.id()));
        fromNew.forEach(r -> shaped.add(r.id()));
        Map<String, List<Long>> missing = new TreeMap<>();
        for (RecordId id : PacedProducer.ids(sent)) {
            if (!shaped.contains(id)) {
                missing.computeIfAbsent(id.key(), k -> new ArrayList<>()).add(id.seq());
            }
        }
        return missing;
    }

    /**
     * Whether each key misses at most one run of records, right after the last one read from the deleted topic and no
     * longer than {@link #MAX_UNREAD_PER_KEY}: what that topic held, written and not yet read, when it was deleted.
     */
    private static boolean onlyWhatTheOldTopicHeldUnread(Map<String, List<Long>> missing,
                                                         List<CollectedRecord> fromOld) {
        for (Map.Entry<String, List<Long>> key : missing.entrySet()) {
            long lastRead = fromOld.stream().filter(r -> r.key().equals(key.getKey()))
                    .mapToLong(r -> r.id().seq()).max().orElse(-1);
            List<Long> run = LongStream.rangeClosed(lastRead + 1, lastRead + key.getValue().size()).boxed().toList();
            if (!key.getValue().equals(run) || run.size() > MAX_UNREAD_PER_KEY) {
                return false;
            }
        }
        return true;
    }

    @Test
    @Timeout(120)
    void shouldPauseWhileAChangelogIsMissingWithRecordsBeingReleasedAndShapeEachOnceWhenItIsBack() throws Exception {
        // Given: one running instance releasing a queue at 10/s per key
        String name = "changelog-missing";
        try (Admin admin = admin();
             ShaperInstance shaper = ShaperInstance.start(settings(name, 10.0, 120_000L));
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     name + "-out", name + "-rejected")) {
            int port = awaitReady(shaper);
            List<PacedProducer.Sent> sent = PacedProducer.send(broker.bootstrapServers(), name + "-in", 2, 100,
                    Duration.ofSeconds(2), Map.of());
            Await.until("records queued", Duration.ofSeconds(30),
                    () -> shaper.gauge(ShaperMetrics.QUEUE_RECORDS, null, null) > 100);

            // When: the key states' changelog is deleted while the queues are released
            String changelog = ShaperTopology.changelogTopics(name).get(1);
            admin.deleteTopics(List.of(changelog)).all().get();

            // Then: not ready within a few of the watch's checks, naming the topic, and nothing released meanwhile
            Await.until("not ready", Duration.ofSeconds(5 * OutputTopicsWatch.PERIOD.toSeconds()),
                    () -> Http.get(port, "/health/ready").status() != 200);
            assertThat(Http.get(port, "/health/ready").body()).contains(changelog, "missing");
            double releasedWhenNoticed = shaper.functionCount(ShaperMetrics.RELEASED, null, null);
            Thread.sleep(2 * OutputTopicsWatch.PERIOD.toMillis()); // a paused instance releases nothing meanwhile
            assertThat(shaper.functionCount(ShaperMetrics.RELEASED, null, null)).isEqualTo(releasedWhenNoticed);

            // And when: the changelog is created again as it was
            admin.createTopics(List.of(new NewTopic(changelog, 2, (short) 1)
                    .configs(Map.of("cleanup.policy", "compact")))).all().get();
            Await.until("ready again, or Kafka Streams failed", Duration.ofSeconds(5 * OutputTopicsWatch.PERIOD
                    .toSeconds()), () -> Http.get(port, "/health/ready").status() == 200 || failed(shaper));
            if (failed(shaper)) {
                // As docs/operations.md says, Kafka Streams may fail a send to the other changelog that the broker
                // did not attempt beside the deleted one's (OperationNotAttemptedException): the instance stops, and
                // what it queued is lost as on a crash; what it released before is each in the output once
                LOG.info("Kafka Streams failed at the deletion, as the docs allow; {} records collected",
                        collector.snapshot().size());
                assertThat(Http.get(port, "/health/ready").status()).isNotEqualTo(200);
                assertThat(collector.snapshot()).allMatch(CollectedRecord::isOutput)
                        .extracting(CollectedRecord::id).doesNotHaveDuplicates()
                        .isSubsetOf(PacedProducer.ids(sent));
                return;
            }

            // Then: every record is shaped, once, those released before the deletion and after alike
            collector.awaitAccountedFor(PacedProducer.ids(sent), Duration.ofSeconds(60));
            assertThat(collector.snapshot()).allMatch(CollectedRecord::isOutput)
                    .extracting(CollectedRecord::id)
                    .containsExactlyInAnyOrderElementsOf(PacedProducer.ids(sent));
        }
    }

    /** Whether the instance's Kafka Streams failed for good. */
    private static boolean failed(ShaperInstance shaper) {
        KafkaStreams.State state = shaper.streams().state();
        return state == KafkaStreams.State.ERROR || state == KafkaStreams.State.PENDING_ERROR;
    }

    @Test
    @Timeout(120)
    void shouldStopWithExitCodeFourWhenTheRejectedTopicStaysMissingLongerThanTheTimeGiven() throws Exception {
        // Given: one running instance that waits 4 s for a missing topic
        String name = "rejected-gone";
        broker.createTopics(1, name + "-in", name + "-out", name + "-rejected");
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), name);
        ShaperInstance.useTopics(settings, name);
        settings.put(ShaperConfig.TOPICS_MISSING_STOP_MS_CONFIG, 4_000L);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()));
             ShaperInstance shaper = ShaperInstance.start(settings)) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);

            // When: the rejected topic is deleted, and not created again
            long deletedAt = System.nanoTime();
            admin.deleteTopics(List.of(name + "-rejected")).all().get();

            // Then: once noticed and 4 s later, the instance decides to stop with the code of a missing topic
            int exitCode = shaper.application().awaitStopDecision(Duration.ofSeconds(30));
            assertThat(exitCode).isEqualTo(ShaperApplication.EXIT_KAFKA);
            assertThat(Duration.ofNanos(System.nanoTime() - deletedAt)).isGreaterThanOrEqualTo(Duration.ofSeconds(4))
                    .isLessThan(Duration.ofSeconds(4).plus(OutputTopicsWatch.PERIOD.multipliedBy(3)));
        }
    }
}
