package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputAssertions;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.VerificationReport;
import dev.shaper.testsupport.VersionOneState;
import dev.shaper.testsupport.Workload;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An upgrade from the version before schedule segments (the reader of version N reads what version N-1 wrote): the
 * changelogs hold the queues as that version wrote them, one record per schedule entry ({@link VersionOneState}),
 * and this version starts on them with an empty state directory, so its stores are restored from those changelogs
 * alone. It must release every queued record once, in order, at its key's rate, and queue new records of a key
 * behind the restored ones.
 */
class PreviousFormatRestoreIT {

    private static final Logger LOG = LoggerFactory.getLogger(PreviousFormatRestoreIT.class);

    private static final String APP = "previous-format-it";
    private static final String IN = "previous-format-in";
    private static final String OUT = "previous-format-out";
    private static final String REJECTED = "previous-format-rejected";
    private static final List<String> KEYS = List.of("a", "b");
    /** Per second and key; a key's 20 restored records take 2 s. */
    private static final int RATE = 10;
    private static final long INTERVAL_NANOS = 1_000_000_000L / RATE;
    /**
     * Half a key's release interval, with idle polls of 1 ms below it, as the rate tests run: a punctuation that
     * runs a little late then costs no rate, and no second holds more than rate + 1 records (see ShapedRateIT).
     */
    private static final long TICK_MS = 1000 / (2 * RATE);
    private static final int RESTORED_PER_KEY = 20;
    private static final int NEW_OF_A = 5;

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(180)
    void shouldReleaseTheQueuesOfThePreviousScheduleFormatRestoredFromTheChangelogs() throws Exception {
        // Given: the topics, and changelogs holding two keys' queues of 20 records each as the previous version
        // left them: its virtual time, each key's state, and one schedule entry per record, due a key's interval
        // apart. The queues' heads fall due a second after the saved time, so that they do not meet the first
        // tick of the start, which often comes late: a start does that whatever the format, and the format is what
        // this test is about.
        broker.createTopics(1, IN, REJECTED);
        broker.createTopics(1, KafkaBroker.APPEND_TIME, OUT);
        List<String> changelogs = ShaperTopology.changelogTopics(APP);
        broker.createTopics(1, Map.of("cleanup.policy", "compact"), changelogs.toArray(String[]::new));
        List<RecordId> ids = new ArrayList<>();
        long wallMs = System.currentTimeMillis();
        long virtualNanos = wallMs * 1_000_000L; // a task's virtual time starts at the wall clock
        long firstDue = virtualNanos + 1_000_000_000L;
        List<KeyValue<byte[], byte[]>> schedule = new ArrayList<>();
        List<KeyValue<byte[], byte[]>> keyStates = new ArrayList<>();
        keyStates.add(VersionOneState.virtualTime(virtualNanos));
        for (String key : KEYS) {
            long bytes = 0;
            for (int seq = 0; seq < RESTORED_PER_KEY; seq++) {
                RecordId id = new RecordId(key, seq);
                ids.add(id);
                KeyValue<byte[], byte[]> entry = VersionOneState.scheduleEntry(key, firstDue + seq * INTERVAL_NANOS,
                        wallMs - 1_000, wallMs, 1, new RecordHeaders(), id.toValue());
                schedule.add(entry);
                bytes += VersionOneState.queuedBytes(key, entry);
            }
            keyStates.add(VersionOneState.keyState(key, firstDue + RESTORED_PER_KEY * INTERVAL_NANOS,
                    RESTORED_PER_KEY, RESTORED_PER_KEY, bytes, firstDue));
        }
        writeChangelog(changelogs.get(0), schedule);
        writeChangelog(changelogs.get(1), keyStates);

        try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(), OUT,
                REJECTED);
             ShaperInstance shaper = ShaperInstance.start(settings())) {
            // When: this version starts on them, and new records of "a" arrive
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
            List<RecordId> newOfA = new ArrayList<>();
            for (int seq = RESTORED_PER_KEY; seq < RESTORED_PER_KEY + NEW_OF_A; seq++) {
                newOfA.add(new RecordId("a", seq));
            }
            Workload.send(broker.bootstrapServers(), IN, newOfA, 0);
            ids.addAll(newOfA);

            // Then: every record leaves once, none rejected, each key in order (the new ones after the restored
            // ones), no key more than rate + 1 in any second, and the queues end empty in records and bytes: the
            // restored key states counted exactly what the restored schedule held
            collector.awaitAccountedFor(ids, Duration.ofSeconds(60));
            List<CollectedRecord> read = collector.snapshot();
            VerificationReport report = ShapedOutputVerifier.verify(ids, read);
            LOG.info("{} records restored in the previous format, {} new\n{}", KEYS.size() * RESTORED_PER_KEY,
                    NEW_OF_A, report.summary());
            ShapedOutputAssertions.assertExactlyOnceInOrderWithin(report, ReleasePace.maxInOneSecond(RATE));
            assertThat(spanMs(read, "a")).as("from the first to the last record of a, at %d/s", RATE)
                    .isGreaterThanOrEqualTo((RESTORED_PER_KEY + NEW_OF_A - 1 - RATE) * 1000L / RATE);
            Await.until("the queues empty", Duration.ofSeconds(10),
                    () -> shaper.gauge(ShaperMetrics.QUEUE_RECORDS, null, null) == 0
                            && shaper.gauge(ShaperMetrics.QUEUE_BYTES, null, null) == 0);
        }
    }

    /** Milliseconds between the releases of the first and the last output record of {@code key}. */
    private static long spanMs(List<CollectedRecord> read, String key) {
        List<Long> released = read.stream().filter(r -> r.isOutput() && r.key().equals(key))
                .map(CollectedRecord::releasedAtMs).sorted().toList();
        return released.get(released.size() - 1) - released.get(0);
    }

    private static void writeChangelog(String topic, List<KeyValue<byte[], byte[]>> entries) throws Exception {
        Map<String, Object> config = Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers(),
                ProducerConfig.ACKS_CONFIG, "all");
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(config, new ByteArraySerializer(),
                new ByteArraySerializer())) {
            for (KeyValue<byte[], byte[]> entry : entries) {
                producer.send(new ProducerRecord<>(topic, 0, entry.key, entry.value)).get();
            }
        }
    }

    private static Map<String, Object> settings() {
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), APP);
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, IN);
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, OUT);
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, REJECTED);
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, RATE);
        settings.put(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, 1_000);
        settings.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, 3_600_000);
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, TICK_MS);
        settings.put(StreamsConfig.POLL_MS_CONFIG, 1);
        settings.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 100);
        settings.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, true);
        return settings;
    }
}
