package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.cost;
import static dev.shaper.testsupport.ShaperDriver.header;
import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.rules.KeyMatcher;
import dev.shaper.internals.rules.KeyRule;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.wiring.TopologyWiring;
import dev.shaper.testsupport.ManualScheduler;
import dev.shaper.testsupport.ShaperDriver;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The admission stage in the topology, with local token buckets (no Redis configured) on a clock the test
 * advances. Shaping is set so fast that every admitted record leaves at once.
 */
class AdmissionTopologyTest {

    private static final long MS = 1_000_000L;
    /** The ping interval, which is also how often the admission counts the live instances. */
    private static final Duration PING = Duration.ofSeconds(1);

    private final AtomicLong nanos = new AtomicLong(1_000_000 * MS);
    private final AtomicInteger liveInstances = new AtomicInteger(1);
    /** Runs the admission's background work, such as counting the live instances, when the test says. */
    private final ManualScheduler background = new ManualScheduler();
    private final AdmissionController admission = new AdmissionController(null, AdmissionMode.STRICT,
            Duration.ofMillis(100), PING, liveInstances::get, background, nanos::get);

    @BeforeEach
    void startAdmission() {
        admission.start();
        background.runDue();
    }

    /** The live instances as the admission's next count finds them. */
    private void countLiveInstances(int count) {
        liveInstances.set(count);
        background.advance(PING);
    }

    @AfterEach
    void closeAdmission() {
        admission.close();
    }

    private static Map<String, String> settings(String... pairs) {
        Map<String, String> s = new HashMap<>(Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "1000000"));
        for (int i = 0; i < pairs.length; i += 2) {
            s.put(pairs[i], pairs[i + 1]);
        }
        return s;
    }

    private static List<String> values(List<TestRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> text(r.value())).toList();
    }

    private static RecordHeader tenant(String value) {
        return new RecordHeader("tenant", value == null ? null : value.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldRejectRecordsOverTheLimitWithRateLimitedAndTheTimeUntilEnoughTokens() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(ShaperConfig.ADMISSION_RATE_CONFIG, "2",
                ShaperConfig.ADMISSION_BURST_CONFIG, "2"), null, admission)) {
            // Given: a bucket of 2 tokens refilled at 2/s
            // When: three records arrive at once
            shaper.send("k", "a");
            shaper.send("k", "b");
            shaper.send("k", "c");
            // Then: two are admitted, the third waits half a second for a token
            assertThat(values(shaper.readShaped())).containsExactly("a", "b");
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(values(rejected)).containsExactly("c");
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("RATE_LIMITED");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("500");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("costs 1");

            // And: after that wait it is admitted
            nanos.addAndGet(500 * MS);
            shaper.send("k", "c-retry");
            assertThat(values(shaper.readShaped())).containsExactly("c-retry");
        }
    }

    @Test
    void shouldTakeTheCostInTokensAndRefuseACostNoWaitCouldAdmit() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(ShaperConfig.ADMISSION_RATE_CONFIG, "10",
                ShaperConfig.ADMISSION_BURST_CONFIG, "5"), null, admission)) {
            shaper.send("k", "three", cost("3"));
            shaper.send("k", "three-again", cost("3"));
            shaper.send("k", "six", cost("6"));
            assertThat(values(shaper.readShaped())).containsExactly("three");
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(values(rejected)).containsExactly("three-again", "six");
            // 2 tokens left, 3 needed at 10/s: 100 ms
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("RATE_LIMITED");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("100");
            assertThat(header(rejected.get(1), ShaperHeaders.REASON)).isEqualTo("INVALID_COST");
            assertThat(header(rejected.get(1), ShaperHeaders.RETRY_AFTER_MS)).isNull();
            assertThat(header(rejected.get(1), ShaperHeaders.DETAIL)).contains("exceeds the admission burst");
        }
    }

    @Test
    void shouldRefuseWithTheLongestWaitOfSeveralLimitsAndNameTheLimitThatBinds() {
        // Given: "api-" keys at most 2 per second and 3 per minute, fixed windows (the clock stands at 1,000 s: a
        // second's start, 40 s into a minute)
        ShapingRule fast = new ShapingRule(1_000_000, 10_000, 60_000);
        AdmissionPolicy policy = new AdmissionPolicy(AdmissionAlgorithm.FIXED_WINDOW, List.of(
                new AdmissionLimit(2, 1000, 2), new AdmissionLimit(3, 60_000, 3)));
        RuleBook rules = new RuleBook(fast, null, List.of(new KeyRule(new KeyMatcher.Prefix("api-"), fast, policy)));
        try (ShaperDriver shaper = ShaperDriver.start(settings(), rules, admission)) {
            // When: three records now, and two a second later
            shaper.send("api-1", "a");
            shaper.send("api-1", "b");
            shaper.send("api-1", "c");
            nanos.addAndGet(1000 * MS);
            shaper.send("api-1", "d");
            shaper.send("api-1", "e");
            shaper.send("api-1", "heavy", cost("4"));
            // Then: two pass in the first second (the second's limit refuses c until its end), one in the next (the
            // minute's limit refuses e until the minute's end, 19 s later, the longer wait)
            assertThat(values(shaper.readShaped())).containsExactly("a", "b", "d");
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(values(rejected)).containsExactly("c", "e", "heavy");
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("RATE_LIMITED");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("1000");
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL))
                    .contains("admission limit 1 of 2, fixed-window 2 per 1s, has 0.00 left, the record costs 1");
            assertThat(header(rejected.get(1), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("19000");
            assertThat(header(rejected.get(1), ShaperHeaders.DETAIL)).contains("admission limit 2 of 2");
            // And: a cost no window can ever hold is refused as such
            assertThat(header(rejected.get(2), ShaperHeaders.REASON)).isEqualTo("INVALID_COST");
            assertThat(header(rejected.get(2), ShaperHeaders.DETAIL)).contains("cost 4 exceeds what the admission"
                    + " limits of this admission key (fixed-window 2 per 1s, 3 per 1m) can ever admit at once, 2");
        }
    }

    @Test
    void shouldShareOneBucketAmongRecordKeysWhenTheAdmissionKeyIsAHeader() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(ShaperConfig.ADMISSION_RATE_CONFIG, "1",
                ShaperConfig.ADMISSION_BURST_CONFIG, "2", ShaperConfig.ADMISSION_KEY_HEADER_CONFIG, "tenant"),
                null, admission)) {
            shaper.send("order-1", "a", tenant("acme"));
            shaper.send("order-2", "b", tenant("acme"));
            shaper.send("order-3", "c", tenant("acme"));
            shaper.send("order-4", "d", tenant("globex"));
            assertThat(values(shaper.readShaped())).containsExactly("a", "b", "d");
            assertThat(values(shaper.readRejected())).containsExactly("c");
        }
    }

    @Test
    void shouldRejectARecordWithoutOrWithAnEmptyAdmissionHeader() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(ShaperConfig.ADMISSION_RATE_CONFIG, "100",
                ShaperConfig.ADMISSION_KEY_HEADER_CONFIG, "tenant"), null, admission)) {
            shaper.send("k", "missing");
            shaper.send("k", "empty", tenant(""));
            shaper.send("k", "null", tenant(null));
            shaper.send("k", "fine", tenant("acme"));
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(values(rejected)).containsExactly("missing", "empty", "null");
            assertThat(rejected).allSatisfy(r -> {
                assertThat(header(r, ShaperHeaders.REASON)).isEqualTo("INVALID_ADMISSION_KEY");
                assertThat(header(r, ShaperHeaders.RETRY_AFTER_MS)).isNull();
            });
            assertThat(header(rejected.get(0), ShaperHeaders.DETAIL)).contains("has no header tenant");
            assertThat(header(rejected.get(1), ShaperHeaders.DETAIL)).contains("has an empty header tenant");
            assertThat(values(shaper.readShaped())).containsExactly("fine");
        }
    }

    @Test
    void shouldLimitOnlyTheKeysARuleGivesAnAdmissionRate() {
        ShapingRule fast = new ShapingRule(1_000_000, 10_000, 60_000);
        RuleBook rules = new RuleBook(fast, null, List.of(
                new KeyRule(new KeyMatcher.Prefix("limited-"), fast, AdmissionPolicy.of(new AdmissionRule(1, 1)))));
        try (ShaperDriver shaper = ShaperDriver.start(settings(), rules, admission)) {
            for (int i = 0; i < 3; i++) {
                shaper.send("limited-1", "l" + i);
                shaper.send("free", "f" + i);
            }
            assertThat(values(shaper.readShaped())).containsExactly("l0", "f0", "f1", "f2");
            assertThat(values(shaper.readRejected())).containsExactly("l1", "l2");
        }
    }

    @Test
    void shouldDivideTheLocalBucketsAmongTheLiveInstances() {
        countLiveInstances(4);
        try (ShaperDriver shaper = ShaperDriver.start(settings(ShaperConfig.ADMISSION_RATE_CONFIG, "40",
                ShaperConfig.ADMISSION_BURST_CONFIG, "40"), null, admission)) {
            // Given: 40/s with a burst of 40 over 4 instances: this one gets 10/s with a burst of 10
            for (int i = 0; i < 20; i++) {
                shaper.send("k", "v" + i);
            }
            assertThat(shaper.readShaped()).hasSize(10);
            // When: one second passes
            nanos.addAndGet(1_000 * MS);
            for (int i = 0; i < 20; i++) {
                shaper.send("k", "w" + i);
            }
            // Then: ten more
            assertThat(shaper.readShaped()).hasSize(10);
        }
    }

    @Test
    void shouldKeepARecordAdmissibleLocallyWhenItsCostExceedsTheLocalShareOfTheBurst() {
        countLiveInstances(4);
        try (ShaperDriver shaper = ShaperDriver.start(settings(ShaperConfig.ADMISSION_RATE_CONFIG, "40",
                ShaperConfig.ADMISSION_BURST_CONFIG, "40"), null, admission)) {
            // Given: this instance's share is 10/s with a burst of 10, yet the shared bucket holds up to 40
            // When: two records of cost 20 arrive
            shaper.send("k", "first", cost("20"));
            shaper.send("k", "second", cost("20"));
            // Then: the first is admitted from a full local bucket; the second waits for 20 tokens at 10/s
            assertThat(values(shaper.readShaped())).containsExactly("first");
            List<TestRecord<byte[], byte[]>> rejected = shaper.readRejected();
            assertThat(header(rejected.get(0), ShaperHeaders.REASON)).isEqualTo("RATE_LIMITED");
            assertThat(header(rejected.get(0), ShaperHeaders.RETRY_AFTER_MS)).isEqualTo("2000");
        }
    }

    @Test
    void shouldNeedNoAdmissionWhenNoKeyHasALimit() {
        ShaperConfig config = new ShaperConfig(settings());
        RuleBook rules = new RuleBook(config.defaultShapingRule(), config.defaultAdmission(), List.of());
        assertThat(rules.hasAdmission()).isFalse();
        TopicLimits limits = TopicLimits.assumed(config.producerMaxRequestSize());
        String described = TopologyWiring.build(config, new TopologyWiring.Parts(rules, 1, null,
                ShaperMetrics.inMemory(), limits)).describe().toString();
        assertThat(described).contains(ShaperTopology.PROCESSOR);
        // Whereas rules with an admission limit cannot be wired without the instance's admission.
        RuleBook limited = new RuleBook(config.defaultShapingRule(), AdmissionPolicy.of(new AdmissionRule(10, 10)), List.of());
        assertThatThrownBy(() -> new TopologyWiring.Parts(limited, 1, null, ShaperMetrics.inMemory(), limits))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("admission");
    }

    @Test
    void shouldRejectInvalidInputBeforeAdmissionTakesTokens() {
        try (ShaperDriver shaper = ShaperDriver.start(settings(ShaperConfig.ADMISSION_RATE_CONFIG, "1",
                ShaperConfig.ADMISSION_BURST_CONFIG, "1"), null, admission)) {
            shaper.send((String) null, "no-key");
            shaper.send("k", "bad-cost", cost("x"));
            shaper.send("k", "fine");
            assertThat(shaper.readRejected()).extracting(r -> header(r, ShaperHeaders.REASON))
                    .containsExactly("INVALID_KEY", "INVALID_COST");
            assertThat(values(shaper.readShaped())).containsExactly("fine");
        }
    }
}
