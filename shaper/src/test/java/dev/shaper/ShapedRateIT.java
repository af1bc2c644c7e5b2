package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.testsupport.ArrivalLog;
import dev.shaper.testsupport.ArrivalStats;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.KeyArrivals;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.VerificationReport;
import dev.shaper.testsupport.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The shaper in this JVM against a real broker: a burst on a few keys comes out of the output topic at the
 * configured rate per key while the stream thread runs (from each key's second second on), in order and exactly
 * once, with no second of any key holding more than rate + 1 records.
 *
 * <p>Times are the shaper's own release stamps ({@code shaper.released.ms}); the report shows beside them the
 * broker's append time ({@code LogAppendTime}) and when a {@code read_committed} consumer read them.
 *
 * <p>Timing settings. This test runs at-least-once with Kafka Streams' own commit interval for it (30 s), with a
 * 5 ms tick and {@code poll.ms} = 1 (what the shaper picks by default for keys at 100/s), so that it shows the release
 * schedule alone; the same promise under exactly-once and every default, commits included, is ExactSmoothRateIT's
 * (see docs/how-it-works.md, "Smoothness and accuracy").
 * {@code -Dshaper.rate.tick.ms}, {@code -Dshaper.rate.commit.interval.ms}, {@code -Dshaper.rate.poll.ms} and
 * {@code -Dshaper.rate.guarantee} override the settings for measurements; each run writes every arrival to
 * {@code target/shaped-rate-it/arrivals.csv}.
 */
class ShapedRateIT {

    private static final Logger LOG = LoggerFactory.getLogger(ShapedRateIT.class);

    private static final int PARTITIONS = 2;
    private static final int KEYS = 4;
    private static final int PER_KEY = 500;
    private static final int RATE = 100;

    private static final long TICK_MS = Long.getLong("shaper.rate.tick.ms", 1000 / (2 * RATE));
    private static final long COMMIT_INTERVAL_MS = Long.getLong("shaper.rate.commit.interval.ms", 30_000);
    private static final long POLL_MS = Long.getLong("shaper.rate.poll.ms", 1);
    private static final String GUARANTEE = System.getProperty("shaper.rate.guarantee", StreamsConfig.AT_LEAST_ONCE);

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @Test
    @Timeout(120)
    void shouldReleaseEachKeyAtTheRateInOrderExactlyOnceWhenABurstArrives(@TempDir Path stateDir) throws Exception {
        // Given
        broker.createTopics(PARTITIONS, "rate-in", "rate-rejected");
        // The output topic records when each record reached it: the arrival the rate bounds are about.
        broker.createTopics(PARTITIONS, KafkaBroker.APPEND_TIME, "rate-out");
        ShaperConfig config = new ShaperConfig(settings(stateDir));
        Map<String, Object> streamsProps = new HashMap<>();
        config.streamsProperties().forEach((k, v) -> streamsProps.put(String.valueOf(k), v));
        LOG.info("rate {}/s per key, tick {} ms, commit interval {} ms, poll {} ms, guarantee {}", RATE, TICK_MS,
                COMMIT_INTERVAL_MS, POLL_MS, streamsProps.get(StreamsConfig.PROCESSING_GUARANTEE_CONFIG));

        try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     "rate-out", "rate-rejected");
             KafkaStreams streams = new KafkaStreams(ShaperTopology.build(config, PARTITIONS),
                     config.streamsProperties())) {
            streams.start();
            Await.until(() -> "Kafka Streams RUNNING, is " + streams.state(), Duration.ofSeconds(60),
                    () -> streams.state() == KafkaStreams.State.RUNNING);

            // When
            long start = System.nanoTime();
            List<RecordId> ids = Workload.sendBurst(broker.bootstrapServers(), "rate-in", KEYS, PER_KEY);
            collector.awaitAccountedFor(ids, Duration.ofSeconds(60));
            long elapsedMs = (System.nanoTime() - start) / 1_000_000;

            // Then
            List<CollectedRecord> read = collector.snapshot();
            ArrivalLog.write(Path.of("target", "shaped-rate-it", "arrivals.csv"), read);
            VerificationReport report = ShapedOutputVerifier.verify(ids, read);
            LOG.info("burst of {} records on {} keys at {}/s per key, all read back {} ms after it was sent;"
                    + " stream thread: {}\n{}", ids.size(), KEYS, RATE, elapsedMs, threadMetrics(streams),
                    report.summary());
            assertThat(report.missing()).withFailMessage("missing ids; %s", report.summary()).isEmpty();
            assertThat(report.duplicates()).withFailMessage("duplicated ids; %s", report.summary()).isEmpty();
            assertThat(report.unexpected()).withFailMessage("unexpected records; %s", report.summary()).isEmpty();
            assertThat(report.rejectedCount()).withFailMessage("rejected records; %s", report.summary()).isZero();
            assertThat(report.orderViolations()).withFailMessage("out of order; %s", report.summary()).isEmpty();
            assertThat(report.keys()).hasSize(KEYS);
            SoftAssertions.assertSoftly(softly -> {
                for (KeyArrivals key : report.keys().values()) {
                    // From its second second on: the first holds the record that passed at arrival and the intake
                    // of the burst, whose lateness a task's first second does not make up
                    long[] stamps = read.stream().filter(r -> r.isOutput() && r.key().equals(key.key()))
                            .mapToLong(r -> r.releasedAtMs() * 1_000_000L).sorted().toArray();
                    long[] afterFirstSecond = java.util.Arrays.stream(stamps)
                            .filter(t -> t >= stamps[0] + 1_000_000_000L).toArray();
                    softly.assertThat(ArrivalStats.runningRate(afterFirstSecond, RATE))
                            .as("rate of %s after its first second, while its releases ran", key.key())
                            .isGreaterThanOrEqualTo(RATE * 0.98);
                    softly.assertThat(key.maxInWindow()).as("most records of %s in one second", key.key())
                            .isLessThanOrEqualTo(ReleasePace.maxInOneSecond(RATE));
                }
            });
        }
    }

    private static Map<String, Object> settings(Path stateDir) {
        Map<String, Object> settings = new HashMap<>();
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, "shaped-rate-it");
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        settings.put(StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
        settings.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, COMMIT_INTERVAL_MS);
        settings.put(StreamsConfig.POLL_MS_CONFIG, POLL_MS);
        settings.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, GUARANTEE);
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, "rate-in");
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, "rate-out");
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, "rate-rejected");
        settings.put(ShaperConfig.SHAPING_RATE_CONFIG, (double) RATE);
        // Room for the whole burst: a key's last record waits PER_KEY / RATE = 5 s.
        settings.put(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, PER_KEY);
        settings.put(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, 60_000L);
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, TICK_MS);
        // The rate is checked at release, not at the broker's append, which adds transport jitter.
        settings.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, true);
        return settings;
    }

    /** The stream thread's commit and punctuation figures, which explain a rate that falls short. */
    private static Map<String, Object> threadMetrics(KafkaStreams streams) {
        Map<String, Object> figures = new TreeMap<>();
        streams.metrics().forEach((name, metric) -> {
            if (name.group().equals("stream-thread-metrics") && List.of("commit-latency-avg",
                    "commit-latency-max", "commit-total", "punctuate-total").contains(name.name())) {
                figures.put(name.name(), metric.metricValue());
            }
        });
        return figures;
    }
}
