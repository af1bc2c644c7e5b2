package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.testsupport.ArrivalStats;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.SharedKafkaBroker;
import dev.shaper.testsupport.Workload;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.parallel.Isolated;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Rule priorities and weights on a real broker, with the capacity binding: interactive keys (priority 0) get their
 * whole demand before backfill keys (priority 1) get any, whatever partitions they are on; keys of weight 3 and 1 share
 * a partition's part 3:1.
 */
@Execution(ExecutionMode.CONCURRENT) // each test has topics and instances of its own: they run side by side
// No other class beside it: the weights' 3:1 is a figure of an instance that gets its cores, as docs/capacity.md
// measures it; beside three other classes on two cores it measured 2.77:1 (decision 0010)
@Isolated
class PriorityIT {

    private static final Logger LOG = LoggerFactory.getLogger(PriorityIT.class);
    private static final double CAPACITY = 100;
    private static final long TICK_MS = 20;
    /** The steady stretch the rates are measured over: from 3 s after the first release, every queue backlogged. */
    private static final int STEADY_SECONDS = 8;
    private static final AtomicInteger RUNS = new AtomicInteger();

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void shouldGiveInteractiveKeysTheirWholeDemandAndBackfillWhatIsLeftAcrossPartitions() throws Exception {
        // Given: 4 interactive keys at 15/s (60/s together) and 4 backfill keys at 50/s, over 4 partitions, against a
        // capacity of 100/s; far more queued than the run releases
        String rules = """
                rules:
                  - prefix: "interactive-"
                    rate: 15
                    max.delay.ms: 600000
                  - prefix: "backfill-"
                    rate: 50
                    priority: 1
                    max.delay.ms: 600000
                """;
        Map<String, List<Long>> released = run(rules, 4, List.of("interactive-", "backfill-"), 400, 2_000);

        // Then: between 3 s and 11 s after the start, interactive at its 60/s while the stream thread ran and never
        // above its keys' ceilings (rate + 1 a second each: what a stall cost them is made up only within that),
        // backfill at the 40/s left or more (what the stalls left too), the two within the capacity
        long[] all = steady(released.values().stream().flatMap(List::stream).toList());
        double stalledSeconds = ArrivalStats.stalledNanos(all, 2 * TICK_MS * 1_000_000L) / 1e9;
        int interactive = steady(released.get("interactive-")).length;
        double backfill = rate(released.get("backfill-"));
        LOG.info("priorities: interactive {} released in {} s ({} s stalled), backfill {}/s, capacity {}/s",
                interactive, STEADY_SECONDS, stalledSeconds, backfill, CAPACITY);
        assertThat(interactive).isBetween((int) (60 * 0.95 * (STEADY_SECONDS - stalledSeconds)),
                (15 + 1) * 4 * STEADY_SECONDS);
        assertThat(backfill).isGreaterThanOrEqualTo(40 * 0.9);
        assertThat(all.length).isLessThanOrEqualTo((int) ((CAPACITY + 1) * STEADY_SECONDS));
    }

    @Test
    @Timeout(180)
    void shouldGiveBackfillNothingWhileInteractiveKeysAskForMoreThanTheCapacity() throws Exception {
        // Given: interactive keys asking 120/s together against 100/s
        String rules = """
                rules:
                  - prefix: "interactive-"
                    rate: 30
                    max.delay.ms: 600000
                  - prefix: "backfill-"
                    rate: 50
                    priority: 1
                    max.delay.ms: 600000
                """;
        Map<String, List<Long>> released = run(rules, 4, List.of("interactive-", "backfill-"), 800, 2_000);

        // Then: between 3 s and 11 s, the capacity goes to the interactive keys; backfill gets next to nothing
        double interactive = rate(released.get("interactive-"));
        long backfill = steady(released.get("backfill-")).length;
        LOG.info("priorities, interactive over capacity: interactive {}/s, backfill {} records in 8 s", interactive,
                backfill);
        assertThat(interactive).isCloseTo(CAPACITY, within(CAPACITY * 0.05));
        assertThat(backfill).isLessThanOrEqualTo(16); // 2 % of the capacity over those 8 s: crumbs of the split
    }

    @Test
    @Timeout(180)
    void shouldShareByWeightThreeToOneWithinAPartition() throws Exception {
        // Given: one partition, 4 keys of weight 3 and 4 of weight 1, all at 50/s, against 100/s
        String rules = """
                rules:
                  - prefix: "heavy-"
                    rate: 50
                    weight: 3
                    max.delay.ms: 600000
                  - prefix: "light-"
                    rate: 50
                    max.delay.ms: 600000
                """;
        Map<String, List<Long>> released = run(rules, 1, List.of("heavy-", "light-"), 1_500, 1_500);

        double heavy = rate(released.get("heavy-"));
        double light = rate(released.get("light-"));
        LOG.info("weights 3:1: heavy {}/s, light {}/s, ratio {}", heavy, light, heavy / light);
        assertThat(heavy / light).isCloseTo(3.0, within(3.0 * 0.05));
        assertThat(heavy + light).isCloseTo(CAPACITY, within(CAPACITY * 0.05));
    }

    /**
     * Starts one shaper with {@code rules}, loads 4 keys per prefix ({@code firstPerKey} records each for the first
     * prefix, {@code secondPerKey} for the second), and returns the release times (ms after the first release) by
     * prefix, collected for 12 s.
     */
    private Map<String, List<Long>> run(String rules, int partitions, List<String> prefixes, int firstPerKey,
                                        int secondPerKey) throws Exception {
        String name = "priority-" + RUNS.incrementAndGet();
        broker.createTopics(partitions, name + "-in");
        broker.createTopics(1, name + "-out", name + "-rejected");
        Path rulesFile = Files.writeString(dir.resolve(name + ".yaml"), rules);
        Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), name);
        ShaperInstance.useTopics(settings, name);
        settings.put(ShaperConfig.RULES_FILE_CONFIG, rulesFile.toString());
        settings.put(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, CAPACITY);
        settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, TICK_MS);
        settings.put(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, true);
        try (ShaperInstance shaper = ShaperInstance.start(settings);
             CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                     name + "-out", name + "-rejected")) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
            List<RecordId> ids = new ArrayList<>();
            int most = Math.max(firstPerKey, secondPerKey);
            for (int seq = 0; seq < most; seq++) {
                for (int p = 0; p < prefixes.size(); p++) {
                    if (seq < (p == 0 ? firstPerKey : secondPerKey)) {
                        for (int key = 0; key < 4; key++) {
                            ids.add(new RecordId(prefixes.get(p) + key, seq));
                        }
                    }
                }
            }
            Workload.send(broker.bootstrapServers(), name + "-in", ids, 0);
            collector.await("12 s of releases", Duration.ofSeconds(60), records -> span(records) >= 12_000);
            List<CollectedRecord> collected = collector.snapshot();
            assertThat(collected.stream().filter(r -> !r.isOutput())).as("nothing refused").isEmpty();
            long first = collected.stream().mapToLong(CollectedRecord::releasedAtMs).min().orElseThrow();
            Map<String, List<Long>> byPrefix = new HashMap<>();
            for (String prefix : prefixes) {
                byPrefix.put(prefix, new ArrayList<>());
            }
            for (CollectedRecord record : collected) {
                String prefix = record.key().substring(0, record.key().indexOf('-') + 1);
                byPrefix.get(prefix).add(record.releasedAtMs() - first);
            }
            return byPrefix;
        }
    }

    private static long span(List<CollectedRecord> records) {
        long min = Long.MAX_VALUE;
        long max = Long.MIN_VALUE;
        for (CollectedRecord record : records) {
            if (record.isOutput() && record.releasedAtMs() != null) {
                min = Math.min(min, record.releasedAtMs());
                max = Math.max(max, record.releasedAtMs());
            }
        }
        return max - min;
    }

    /** The release times between 3 s and 11 s after the first release (every queue backlogged), in nanoseconds. */
    private static long[] steady(List<Long> releasedMs) {
        return releasedMs.stream().filter(t -> t >= 3_000 && t < 3_000 + STEADY_SECONDS * 1_000)
                .mapToLong(t -> t * 1_000_000L).sorted().toArray();
    }

    private static double rate(List<Long> releasedMs) {
        long[] steady = steady(releasedMs);
        return steady.length < 2 ? 0 : steady.length / (double) STEADY_SECONDS;
    }
}
