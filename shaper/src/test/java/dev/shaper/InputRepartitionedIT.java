package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.internals.cluster.InputPartitionWatch;
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
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.tools.StreamsResetter;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Partitions added to the input topic while records are queued, on a real broker: the instance notices within a few
 * seconds, turns not ready, rejects what arrives from then on (INPUT_REPARTITIONED), and drains what it had queued
 * to the output at its rates, each record once; the records of the new partitions wait in the input topic,
 * untouched, for the application to be reset. A start on the old state is refused, naming the layout; after the
 * documented reset (Kafka's own StreamsResetter, input offsets kept) a start shapes the new partitions' records, each
 * once, and takes nothing of the old partitions again.
 */
class InputRepartitionedIT {

    private static final Logger LOG = LoggerFactory.getLogger(InputRepartitionedIT.class);

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(180)
    void shouldStopTakingInputAndDrainItsQueuesWhenPartitionsAreAddedAndRefuseToStartOnTheOldState()
            throws Exception {
        // Given: one instance on two partitions, one key each at 5/s, 100 records queued per key
        String name = "repartitioned";
        broker.createTopics(2, name + "-in");
        broker.createTopics(1, name + "-out", name + "-rejected");
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), name);
        ShaperInstance.useTopics(settings, name);
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, 5.0);
        settings.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, 60_000L);
        try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                broker.bootstrapServers()));
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     name + "-out", name + "-rejected")) {
            List<PacedProducer.Sent> before;
            List<PacedProducer.Sent> after;
            try (ShaperInstance shaper = ShaperInstance.start(settings)) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
                int port = shaper.application().httpPort();
                Await.until("ready", Duration.ofSeconds(30), () -> Http.get(port, "/health/ready").status() == 200);
                before = PacedProducer.send(broker.bootstrapServers(), name + "-in", 2, 100, Duration.ofSeconds(2),
                        Map.of());
                Await.until("records queued", Duration.ofSeconds(30),
                        () -> shaper.gauge(ShaperMetrics.QUEUE_RECORDS, null, null) >= 100);

                // When: the input topic grows to four partitions
                admin.createPartitions(Map.of(name + "-in", NewPartitions.increaseTo(4))).all().get();
                long addedAt = System.currentTimeMillis();

                // Then: not ready within a few of the watch's checks
                Await.until("not ready", Duration.ofSeconds(4 * InputPartitionWatch.PERIOD.toSeconds()),
                        () -> Http.get(port, "/health/ready").status() != 200);
                long noticedAfterMs = System.currentTimeMillis() - addedAt;
                assertThat(Http.get(port, "/health/ready").body()).contains("not ready", name + "-in");

                // And when: records keep coming, to the old partitions and the new
                after = PacedProducer.send(broker.bootstrapServers(), name + "-in", 4, 20, Duration.ofSeconds(2),
                        Map.of());

                // Then: what was queued drains to the output; what arrives on the old partitions is rejected
                Await.until("the queues drained", Duration.ofSeconds(60),
                        () -> shaper.gauge(ShaperMetrics.QUEUE_RECORDS, null, null) == 0);
                List<RecordId> oldPartitions = after.stream().filter(s -> s.partition() < 2)
                        .map(PacedProducer.Sent::id).toList();
                collector.awaitAccountedFor(PacedProducer.ids(before), Duration.ofSeconds(30));
                collector.await("the later records of the old partitions rejected", Duration.ofSeconds(30),
                        records -> records.stream().filter(r -> !r.isOutput()).count() >= oldPartitions.size());
                LOG.info("partitions added: noticed after {} ms; {} queued records drained", noticedAfterMs,
                        before.size());
            }
            // (PacedProducer numbers each batch's records per partition from 0: the two batches share ids)
            List<CollectedRecord> collected = collector.snapshot();
            List<RecordId> shaped = collected.stream().filter(CollectedRecord::isOutput).map(CollectedRecord::id)
                    .toList();
            List<CollectedRecord> rejected = collected.stream().filter(r -> !r.isOutput()).toList();
            assertThat(shaped).as("what was queued, each once").containsExactlyInAnyOrderElementsOf(
                    PacedProducer.ids(before));
            assertThat(rejected).extracting(CollectedRecord::id).as("what arrived on the old partitions, each once")
                    .containsExactlyInAnyOrderElementsOf(after.stream().filter(s -> s.partition() < 2)
                            .map(PacedProducer.Sent::id).toList());
            assertThat(rejected).extracting(CollectedRecord::reason).containsOnly("INPUT_REPARTITIONED");
            // And: nothing of the new partitions was taken: it waits in the input topic for the reset application
            assertThat(collected).noneMatch(r -> r.key().equals("p2") || r.key().equals("p3"));

            // And: a start on the state laid out by two partitions is refused, naming both counts
            assertThatThrownBy(() -> ShaperInstance.create(settings))
                    .isInstanceOf(ShaperApplication.StartupException.class)
                    .hasMessageContaining("has 4 partitions")
                    .hasMessageContaining("laid out by 2");

            // And when: the way forward docs/operations.md gives, the queues drained and the instance stopped: the
            // application's state reset without --input-topics (input offsets kept), a start on a fresh state.dir
            int resetExit = new StreamsResetter().execute(new String[] {
                "--bootstrap-server", broker.bootstrapServers(), "--application-id", name});
            assertThat(resetExit).isZero();
            List<RecordId> newPartitions = after.stream().filter(s -> s.partition() >= 2)
                    .map(PacedProducer.Sent::id).toList();
            try (ShaperInstance restarted = ShaperInstance.start(settings)) {
                collector.awaitAccountedFor(newPartitions, Duration.ofSeconds(60));
                Await.until("the queues drained again", Duration.ofSeconds(30),
                        () -> restarted.gauge(ShaperMetrics.QUEUE_RECORDS, null, null) == 0);
            }

            // Then: the records of the new partitions are shaped, once; nothing of the old ones is taken again
            List<CollectedRecord> afterReset = collector.snapshot();
            List<RecordId> expectedShaped = new ArrayList<>(PacedProducer.ids(before));
            expectedShaped.addAll(newPartitions);
            assertThat(afterReset.stream().filter(CollectedRecord::isOutput).map(CollectedRecord::id).toList())
                    .as("what was queued before, and the new partitions' records, each once")
                    .containsExactlyInAnyOrderElementsOf(expectedShaped);
            assertThat(afterReset.stream().filter(r -> !r.isOutput()).toList()).hasSameSizeAs(rejected);
        }
    }
}
