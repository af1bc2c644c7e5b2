package dev.shaper.demo.traffic;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** Each pattern's rate over time, measured on a fake clock: records sent per one-second bucket. */
class TrafficGeneratorTest {

    private final FakeTicker ticker = new FakeTicker();
    private final List<Long> sentAtNanos = new ArrayList<>();

    private long[] perSecond(TrafficPattern pattern, Duration duration) {
        TrafficGenerator generator = new TrafficGenerator("run1", pattern, new ZipfKeys(3, 1, new Random(1)), 50,
                TrafficLimit.of(duration), ticker);
        generator.run((id, value) -> sentAtNanos.add(ticker.nanoTime()));
        long[] buckets = new long[(int) duration.toSeconds()];
        for (long at : sentAtNanos) {
            buckets[(int) (at / 1_000_000_000L)]++;
        }
        return buckets;
    }

    @Test
    void shouldSendTheSameNumberEverySecondWhenSteady() {
        // Given / When: 100/s for 5 s
        long[] buckets = perSecond(new Steady(100), Duration.ofSeconds(5));

        // Then
        assertThat(java.util.Arrays.stream(buckets).boxed().toList()).allSatisfy(n -> assertThat(n).isBetween(99L, 101L));
        assertThat(sentAtNanos).hasSizeBetween(499, 500);
    }

    @Test
    void shouldSendEachBurstBackToBackAtThePeriodStart() {
        // Given / When: bursts of 50 every 2 s, nothing in between
        long[] buckets = perSecond(new Bursts(0, 50, 2, 0), Duration.ofSeconds(6));

        // Then: 50 in each even second, none in the odd ones, each burst within one pacing step
        assertThat(buckets).containsExactly(50, 0, 50, 0, 50, 0);
        for (int burst = 0; burst < 3; burst++) {
            List<Long> times = sentAtNanos.subList(burst * 50, burst * 50 + 50);
            assertThat(times.get(49) - times.get(0)).isLessThanOrEqualTo(TrafficGenerator.STEP_NANOS);
        }
    }

    @Test
    void shouldSpreadABurstOverItsLengthOnTopOfTheBaseRate() {
        // Given / When: 10/s plus 100 records spread over the first half of every 2 s
        long[] buckets = perSecond(new Bursts(10, 100, 2, 0.5), Duration.ofSeconds(4));

        // Then
        assertThat(buckets[0]).isBetween(109L, 111L);
        assertThat(buckets[1]).isBetween(9L, 11L);
        assertThat(sentAtNanos.stream().filter(t -> t >= 500_000_000L && t < 1_000_000_000L).count())
                .isBetween(4L, 6L);
    }

    @Test
    void shouldGrowTheRateLinearlyOnARamp() {
        // Given / When: 0 -> 100/s over 10 s
        long[] buckets = perSecond(new Ramp(0, 100, 10), Duration.ofSeconds(10));

        // Then: second i holds the rate at its middle, 10 i + 5
        for (int i = 0; i < 10; i++) {
            assertThat(buckets[i]).as("second %d", i).isBetween(10L * i + 4, 10L * i + 6);
        }
    }

    @Test
    void shouldStayAtTheTargetRateAfterTheRamp() {
        assertThat(new Ramp(50, 100, 2).dueBy(4)).isEqualTo(150 + 200.0);
    }

    @Test
    void shouldAlternateActiveAndSilentPhasesWhenOnOff() {
        // Given / When: 100/s for 2 s, silent for 1 s
        long[] buckets = perSecond(new OnOff(100, 2, 1), Duration.ofSeconds(6));

        // Then: silent seconds hold at most the record due exactly when the active phase ends
        assertThat(buckets[2]).isLessThanOrEqualTo(1);
        assertThat(buckets[5]).isLessThanOrEqualTo(1);
        for (int i : new int[] {0, 1, 3, 4}) {
            assertThat(buckets[i]).as("second %d", i).isBetween(99L, 101L);
        }
    }

    @Test
    void shouldStopAtTheCountBeforeTheDuration() {
        TrafficGenerator generator = new TrafficGenerator("run1", new Steady(1000), new ZipfKeys(2, 0, new Random(1)),
                50, new TrafficLimit(Duration.ofSeconds(10), 250), ticker);

        long sent = generator.run((id, value) -> sentAtNanos.add(ticker.nanoTime()));

        assertThat(sent).isEqualTo(250);
        assertThat(ticker.nanoTime()).isLessThan(300_000_000L);
    }

    @Test
    void shouldNumberEachKeysRecordsFromZeroAndPadValuesToTheRecordSize() {
        List<DemoRecordId> ids = new ArrayList<>();
        List<byte[]> values = new ArrayList<>();
        new TrafficGenerator("r", new Steady(1000), new ZipfKeys(3, 1, new Random(7)), 64, TrafficLimit.ofCount(300),
                ticker).run((id, value) -> {
                    ids.add(id);
                    values.add(value);
                });

        for (String key : List.of("k0", "k1", "k2")) {
            List<Long> seqs = ids.stream().filter(id -> id.key().equals(key)).map(DemoRecordId::seq).toList();
            assertThat(seqs).isEqualTo(java.util.stream.LongStream.range(0, seqs.size()).boxed().toList());
        }
        assertThat(values).allSatisfy(v -> assertThat(v).hasSize(64));
    }
}
