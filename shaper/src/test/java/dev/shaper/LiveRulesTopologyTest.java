package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.header;
import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.rules.KeyMatcher;
import dev.shaper.internals.rules.KeyRule;
import dev.shaper.internals.rules.LiveRules;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RuleSet;
import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.store.KeyStateStore;
import dev.shaper.internals.store.ScheduleBand;
import dev.shaper.testsupport.ManualScheduler;
import dev.shaper.testsupport.ShaperDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.Test;

/**
 * Rules that change while records are queued (a new version published to the tasks' live rules, as the rules topic's
 * reader does): a new rate or bound applies to the queued records within a tick, a new priority or weight once the
 * key's queue is empty, and an admission bucket keeps its balance, capped at the new burst.
 */
class LiveRulesTopologyTest {

    private static final ShapingRule DEFAULTS = new ShapingRule(1_000, 100_000, 600_000);
    private static final byte[] K = "k".getBytes(StandardCharsets.UTF_8);

    private static KeyRule exactK(ShapingRule rule) {
        return new KeyRule(new KeyMatcher.Exact("k"), rule);
    }

    private static LiveRules live(KeyRule... rules) {
        return LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of(rules)));
    }

    private static void publish(LiveRules live, KeyRule... rules) {
        live.publish(live.current().withRules(List.of(rules)));
    }

    /** Admission on local buckets (no Redis), started, on the test's clock. */
    private static AdmissionController localAdmission(AtomicLong nanos) {
        AdmissionController admission = new AdmissionController(null, AdmissionMode.STRICT, Duration.ofMillis(100),
                Duration.ofSeconds(1), () -> 1, new ManualScheduler(), nanos::get);
        admission.start();
        return admission;
    }

    private static void send(ShaperDriver shaper, String key, int count) {
        for (int i = 0; i < count; i++) {
            shaper.send(key, key + "-" + i);
        }
    }

    /** Advances {@code ms} a millisecond at a time; the milliseconds (since the call) at which records left. */
    private static List<Long> releases(ShaperDriver shaper, long ms) {
        List<Long> at = new ArrayList<>();
        for (long t = 0; t < ms; t++) {
            shaper.advance(Duration.ofMillis(1));
            for (int n = shaper.readShaped().size(); n > 0; n--) {
                at.add(t);
            }
        }
        return at;
    }

    @Test
    void shouldReleaseTheQueuedRecordsAtAHalvedRateFromTheNextTick() {
        LiveRules rules = live(exactK(new ShapingRule(100, 100_000, 600_000)));
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(), new RuleBook(rules), 1)) {
            // Given: a backlog of 6 s at 100/s
            send(shaper, "k", 600);
            shaper.readShaped(); // the first passed at once
            assertThat(releases(shaper, 1_000)).hasSize(100);

            // When: the rule halves the rate
            publish(rules, exactK(new ShapingRule(50, 100_000, 600_000)));

            // Then: from the next tick on (at most half the old interval, 5 ms), releases come at 50/s, or up to 2 %
            // above (the records queued at the old rate count as behind their dues: ReleasePace.catchUpIntervalNanos)
            List<Long> after = releases(shaper, 3_005).stream().filter(t -> t >= 5).toList();
            assertThat(after).hasSizeBetween(150, 154);
            assertThat(mostInOneSecond(after)).isLessThanOrEqualTo(ReleasePace.maxInOneSecond(50));
        }
    }

    @Test
    void shouldBringTheQueuedRecordsForwardToARaisedRateInTheirOrder() {
        LiveRules rules = live(exactK(new ShapingRule(10, 100_000, 600_000)));
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(), new RuleBook(rules), 1)) {
            // Given: a backlog of 30 s at 10/s (stored: the driver commits after each record), one second released
            send(shaper, "k", 300);
            shaper.readShaped(); // the first passed at once
            assertThat(releases(shaper, 1_000)).hasSize(10);

            // When: the rule raises the rate to 50/s, and a record arrives after the change
            publish(rules, exactK(new ShapingRule(50, 100_000, 600_000)));
            shaper.advance(Duration.ofMillis(5)); // the next tick applies it
            shaper.send("k", "k-late");

            // Then: the queued records leave at 50/s, not at their old dues 100 ms apart
            List<String> released = new ArrayList<>();
            List<Long> at = new ArrayList<>();
            for (long t = 0; t < 6_000; t++) {
                shaper.advance(Duration.ofMillis(1));
                for (TestRecord<byte[], byte[]> record : shaper.readShaped()) {
                    released.add(text(record.value()));
                    at.add(t);
                }
            }
            // (the key's head keeps its slot, at most one old interval away)
            assertThat(at.get(0)).isLessThanOrEqualTo(100L);
            assertThat(at.stream().filter(t -> t >= 100 && t < 2_100)).hasSizeBetween(99, 101);
            assertThat(mostInOneSecond(at)).isLessThanOrEqualTo(ReleasePace.maxInOneSecond(50));
            // And: in their order, the late record behind them at the new rate: 290 records in 5.8 s after the head
            List<String> expected = new ArrayList<>();
            for (int i = 11; i < 300; i++) {
                expected.add("k-" + i);
            }
            expected.add("k-late");
            assertThat(released).containsExactlyElementsOf(expected);
            assertThat(at.get(at.size() - 1) - at.get(0)).isBetween(5_760L, 5_800L);
        }
    }

    @Test
    void shouldKeepRecordsAlreadyDueInOrderAndLoseNoneWhenTheRateRisesBehindABindingTotalRate() {
        // Given: k at 10/s behind a total rate of 4/s: records fall due faster than the total lets them go
        LiveRules rules = live(exactK(new ShapingRule(10, 100_000, 600_000)));
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "4"),
                new RuleBook(rules), 1)) {
            send(shaper, "k", 100);
            List<String> released = new ArrayList<>(values(shaper.readShaped()));
            for (int t = 0; t < 3_000; t++) {
                shaper.advance(Duration.ofMillis(1));
                released.addAll(values(shaper.readShaped()));
            }
            assertThat(released).hasSizeBetween(10, 15); // about 18 more are due by now, held back

            // When: k's rate rises to 50/s: the records already due keep their dues, the others come forward
            publish(rules, exactK(new ShapingRule(50, 100_000, 600_000)));
            for (int t = 0; t < 30_000; t++) {
                shaper.advance(Duration.ofMillis(1));
                released.addAll(values(shaper.readShaped()));
            }

            // Then: every record once, in order, at the total's 4/s
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 100; i++) {
                expected.add("k-" + i);
            }
            assertThat(released).containsExactlyElementsOf(expected);
            assertThat(shaper.readRejected()).isEmpty();
        }
    }

    private static List<String> values(List<TestRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> text(r.value())).toList();
    }

    @Test
    void shouldLeaveTheDuesOfKeysWhoseRateDidNotRise() {
        LiveRules rules = live(exactK(new ShapingRule(10, 100_000, 600_000)));
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(), new RuleBook(rules), 1)) {
            send(shaper, "k", 50);
            send(shaper, "other", 50); // at the defaults' 1,000/s: gone within 50 ms
            shaper.readShaped();

            // A rule for other keys changes; k's rate stays
            publish(rules, exactK(new ShapingRule(10, 100_000, 600_000)),
                    new KeyRule(new KeyMatcher.Exact("x"), new ShapingRule(500, 10, 1_000)));

            assertThat(releases(shaper, 2_000).stream().filter(t -> t >= 100)).hasSizeBetween(19, 20);
        }
    }

    private static int mostInOneSecond(List<Long> times) {
        int most = 0;
        for (int i = 0, j = 0; i < times.size(); i++) {
            while (times.get(i) - times.get(j) >= 1_000) {
                j++;
            }
            most = Math.max(most, i - j + 1);
        }
        return most;
    }

    @Test
    void shouldFallBackToTheDefaultsWhenTheRuleIsDeleted() {
        LiveRules rules = LiveRules.updatable(new RuleSet(new ShapingRule(10, 100_000, 600_000), null,
                List.of(exactK(new ShapingRule(100, 100_000, 600_000)))));
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(), new RuleBook(rules), 1)) {
            send(shaper, "k", 600);
            shaper.readShaped();
            assertThat(releases(shaper, 1_000)).hasSize(100);

            publish(rules);

            // The defaults' 10/s, for the records already queued too
            assertThat(releases(shaper, 2_005).stream().filter(t -> t >= 5)).hasSizeBetween(20, 21);
        }
    }

    @Test
    void shouldRejectQueuedRecordsThatWaitedLongerThanALoweredMaxDelayInsteadOfReleasingThem() {
        LiveRules rules = live(exactK(new ShapingRule(10, 100_000, 600_000)));
        try (ShaperDriver shaper = ShaperDriver.start(Map.of(), new RuleBook(rules), 1)) {
            send(shaper, "k", 100); // 10 s of backlog
            shaper.readShaped();
            assertThat(releases(shaper, 2_000)).hasSize(20);

            publish(rules, exactK(new ShapingRule(10, 100_000, 1_000)));

            // Every record that falls due has waited more than 2 s: rejected, not released
            assertThat(releases(shaper, 2_000)).isEmpty();
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(rejected).hasSizeBetween(19, 21);
            assertThat(rejected).allSatisfy(r -> assertThat(header(r, ShaperHeaders.REASON))
                    .isEqualTo("DELAY_EXCEEDED"));
        }
    }

    @Test
    void shouldKeepAQueuedKeyInItsBandSoItsRecordsLeaveInOrderAndMoveItOnceTheQueueIsEmpty() {
        // Given: a total of 10/s, and key k at priority 1 with a backlog (5 records at its own 100/s)
        LiveRules rules = live(exactK(new ShapingRule(100, 100_000, 600_000, 1, 1)));
        Map<String, String> settings = Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "10",
                ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, ShaperConfig.TOTAL_SCOPE_PARTITION);
        try (ShaperDriver shaper = ShaperDriver.start(settings, new RuleBook(rules), 1)) {
            send(shaper, "k", 5);

            // When: k's rule moves to priority 0 while those wait, and another record of k arrives
            publish(rules, exactK(new ShapingRule(100, 100_000, 600_000, 0, 1)));
            shaper.send("k", "k-5");
            KeyStateStore states = shaper.store(ShaperTopology.KEY_STATE_STORE);
            assertThat(states.entry(K).queuedBand()).isEqualTo(new ScheduleBand(1, 1));
            shaper.advance(Duration.ofSeconds(2));

            // Then: the new record waited behind the old ones, in k's band of priority 1
            assertThat(shaper.readShaped()).extracting(r -> text(r.value()))
                    .containsExactly("k-0", "k-1", "k-2", "k-3", "k-4", "k-5");

            // And once k's queue was empty, its next records wait at the new priority
            send(shaper, "k", 3);
            assertThat(states.entry(K).queuedBand()).isEqualTo(ScheduleBand.DEFAULT);
        }
    }

    @Test
    void shouldKeepAnAdmissionBucketsBalanceAcrossAChangeCappedAtTheNewBurst() {
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
        AdmissionController admission = localAdmission(nanos);
        LiveRules rules = LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of(admissionOfK(0.001, 100))));
        try (ShaperDriver shaper = ShaperDriver.start(new HashMap<>(), new RuleBook(rules), admission)) {
            // Given: 30 of the bucket's 100 tokens spent (it refills at a token in 1,000 s: not in this test)
            send(shaper, "k", 30);
            assertThat(shaper.readRejected()).isEmpty();

            // When: the rate changes, not the burst
            publish(rules, admissionOfK(0.002, 100));
            send(shaper, "k", 80);

            // Then: the bucket kept its 70 tokens; a fresh one would have admitted all 80
            assertThat(shaper.readRejected()).hasSize(10);

            // When: 80 s at 1/s refill 80 tokens, and the burst falls to 40 meanwhile
            publish(rules, admissionOfK(1, 40));
            nanos.addAndGet(80_000_000_000L);
            send(shaper, "k", 50);

            // Then: the balance is capped at the new burst
            assertThat(shaper.readRejected()).hasSize(10);
        } finally {
            admission.close();
        }
    }

    @Test
    void shouldRefitSeveralLimitsOfAKeyWhenItsPolicyChangesLive() {
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L);
        AdmissionController admission = localAdmission(nanos);
        AdmissionLimit perHour = new AdmissionLimit(1_000, 3_600_000, 1_000);
        LiveRules rules = LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of(policyOfK(
                AdmissionAlgorithm.TOKEN_BUCKET, new AdmissionLimit(0.001, 1_000, 100), perHour))));
        try (ShaperDriver shaper = ShaperDriver.start(new HashMap<>(), new RuleBook(rules), admission)) {
            // Given: 30 of the first bucket's 100 tokens spent
            send(shaper, "k", 30);
            assertThat(shaper.readRejected()).isEmpty();

            // When: the first limit's rate changes, not its burst
            publish(rules, policyOfK(AdmissionAlgorithm.TOKEN_BUCKET, new AdmissionLimit(0.002, 1_000, 100),
                    perHour));
            send(shaper, "k", 80);

            // Then: its bucket kept its 70 tokens
            assertThat(shaper.readRejected()).hasSize(10);

            // When: 80 s refill 80 tokens at 1/s, and the burst falls to 40 meanwhile
            publish(rules, policyOfK(AdmissionAlgorithm.TOKEN_BUCKET, new AdmissionLimit(1, 1_000, 40), perHour));
            nanos.addAndGet(80_000_000_000L);
            send(shaper, "k", 50);

            // Then: the balance is capped at the new burst
            assertThat(shaper.readRejected()).hasSize(10);
        } finally {
            admission.close();
        }
    }

    @Test
    void shouldKeepAWindowsCountByItsLengthWhenAPolicyChangesLive() {
        AtomicLong nanos = new AtomicLong(1_000_000_000_000L); // 1,000 s: early in an hour-long window
        AdmissionController admission = localAdmission(nanos);
        AdmissionLimit perDay = new AdmissionLimit(1_000, 86_400_000, 1_000);
        LiveRules rules = LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of(policyOfK(
                AdmissionAlgorithm.FIXED_WINDOW, new AdmissionLimit(50, 3_600_000, 50), perDay))));
        try (ShaperDriver shaper = ShaperDriver.start(new HashMap<>(), new RuleBook(rules), admission)) {
            send(shaper, "k", 30);
            assertThat(shaper.readRejected()).isEmpty();

            // When: the hour's amount falls to 40, and the algorithm becomes the sliding window
            publish(rules, policyOfK(AdmissionAlgorithm.SLIDING_WINDOW, new AdmissionLimit(40, 3_600_000, 40),
                    perDay));
            send(shaper, "k", 20);

            // Then: the hour's window kept its count of 30: 10 more pass
            assertThat(shaper.readRejected()).hasSize(10);

            // When: the window's length changes
            publish(rules, policyOfK(AdmissionAlgorithm.SLIDING_WINDOW, new AdmissionLimit(40, 7_200_000, 40),
                    perDay));
            send(shaper, "k", 45);

            // Then: a window of a new length counts afresh; the day's window kept its 40
            assertThat(shaper.readRejected()).hasSize(5);
        } finally {
            admission.close();
        }
    }

    private static KeyRule policyOfK(AdmissionAlgorithm algorithm, AdmissionLimit... limits) {
        return new KeyRule(new KeyMatcher.Exact("k"), DEFAULTS, new AdmissionPolicy(algorithm, List.of(limits)));
    }

    private static KeyRule admissionOfK(double rate, double burst) {
        return new KeyRule(new KeyMatcher.Exact("k"), DEFAULTS, AdmissionPolicy.of(new AdmissionRule(rate, burst)));
    }
}
