package dev.shaper;

import static dev.shaper.testsupport.ShaperDriver.header;
import static dev.shaper.testsupport.ShaperDriver.text;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.rules.KeyMatcher;
import dev.shaper.internals.rules.KeyRule;
import dev.shaper.internals.rules.LiveRules;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.rules.RuleSet;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.testsupport.ManualScheduler;
import dev.shaper.testsupport.ShaperDriver;
import io.micrometer.core.instrument.MeterRegistry;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.streams.test.TestRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Rules in shadow: every record passes at once, and what the rule would have done (wait, or be rejected, and why) is
 * counted with {@code mode="shadow"} and reported on the shadow topic; the enforced keys beside them are untouched.
 */
class ShadowModeTopologyTest {

    private static final long MS = 1_000_000L;
    private static final String SHADOW_TOPIC = "shaper-shadow";

    private final AtomicLong nanos = new AtomicLong(1_000_000 * MS);
    private final AdmissionController admission = new AdmissionController(null, AdmissionMode.STRICT,
            Duration.ofMillis(100), Duration.ofSeconds(1), () -> 1, new ManualScheduler(), nanos::get);

    @BeforeEach
    void startAdmission() {
        admission.start();
    }

    @AfterEach
    void closeAdmission() {
        admission.close();
    }

    private static Map<String, String> settings(String... pairs) {
        Map<String, String> s = new HashMap<>(Map.of(ShaperConfig.SHADOW_TOPIC_CONFIG, SHADOW_TOPIC,
                ShaperConfig.SHAPING_TICK_MS_CONFIG, "10"));
        for (int i = 0; i < pairs.length; i += 2) {
            s.put(pairs[i], pairs[i + 1]);
        }
        return s;
    }

    private static List<String> values(List<TestRecord<byte[], byte[]>> records) {
        return records.stream().map(r -> text(r.value())).toList();
    }

    /** Advances the driver's wall clock and the admission's clock together. */
    private void advance(ShaperDriver shaper, long ms) {
        nanos.addAndGet(ms * MS);
        shaper.advance(Duration.ofMillis(ms));
    }

    private static double counted(ShaperDriver shaper, String name, String... tags) {
        MeterRegistry registry = shaper.metrics().registry();
        var search = registry.find(name).tags(tags);
        return search.counter() != null ? search.counter().count() : search.timer() == null ? 0
                : search.timer().count();
    }

    @Test
    void shouldPassEveryRecordAtOnceAndReportTheRejectionsOfAnAdmissionLimitInShadow() {
        // Given: tenant- keys limited to 10/s (burst 10) in shadow, beside the same limit enforced on other keys
        ShapingRule fast = new ShapingRule(1_000_000, 10_000, 60_000);
        AdmissionPolicy tenPerSecond = AdmissionPolicy.of(new AdmissionRule(10, 10));
        RuleBook rules = new RuleBook(fast, tenPerSecond, List.of(
                new KeyRule(new KeyMatcher.Prefix("tenant-"), fast.withShadow(true), tenPerSecond.withShadow(true))));
        try (ShaperDriver shaper = ShaperDriver.start(settings(), rules, admission)) {
            // When: 100/s is offered for 3 s to a key in shadow, and 20 at once to an enforced one
            int passedAtOnce = 0;
            for (int i = 0; i < 300; i++) {
                shaper.send("tenant-1", "t" + i);
                passedAtOnce += shaper.readShaped().size();
                advance(shaper, 10);
            }
            for (int i = 0; i < 20; i++) {
                shaper.send("enforced", "e" + i);
            }

            // Then: every record of the key in shadow left at once
            assertThat(passedAtOnce).isEqualTo(300);
            // And: the shadow topic holds the would-be rejections, about 90 of each 100 after the burst
            List<TestRecord<byte[], byte[]>> reports = shaper.readShadow();
            assertThat(reports).hasSizeBetween(255, 265); // 300 - the burst of 10 - 10/s for 3 s
            TestRecord<byte[], byte[]> first = reports.get(0);
            assertThat(text(first.key())).isEqualTo("tenant-1");
            assertThat(first.value()).isNull();
            assertThat(header(first, ShaperHeaders.SHADOW_DECISION)).isEqualTo("reject");
            assertThat(header(first, ShaperHeaders.REASON)).isEqualTo("RATE_LIMITED");
            assertThat(Long.parseLong(header(first, ShaperHeaders.RETRY_AFTER_MS))).isBetween(1L, 100L);
            assertThat(header(first, ShaperHeaders.DETAIL)).contains("admission bucket (10.0 tokens/s, burst 10.0)");
            assertThat(header(first, ShaperHeaders.SOURCE_TOPIC)).isEqualTo("shaper-input");
            // The burst and the tokens of the first 100 ms spent
            assertThat(Long.parseLong(header(first, ShaperHeaders.SOURCE_OFFSET))).isBetween(10L, 11L);
            assertThat(reports).allSatisfy(r -> assertThat(header(r, ShaperHeaders.REASON)).isEqualTo("RATE_LIMITED"));

            // And: the enforced key beside it was limited for real: its burst passed, the rest was rejected
            assertThat(values(shaper.readShaped())).hasSize(10);
            assertThat(shaper.readRejected()).hasSize(10);
            assertThat(counted(shaper, ShaperMetrics.REJECTED, "reason", "RATE_LIMITED", "mode", "shadow"))
                    .isEqualTo(reports.size());
            assertThat(counted(shaper, ShaperMetrics.REJECTED, "reason", "RATE_LIMITED", "mode", "enforce"))
                    .isEqualTo(10);
            assertThat(counted(shaper, ShaperMetrics.SHADOWED, "mode", "shadow")).isEqualTo(300);
        }
    }

    @Test
    void shouldReportTheWaitsAndTheFullQueueOfALeakyBucketInShadow() {
        // Given: key k at 10/s with room for 5 waiting records, in shadow
        ShapingRule tenPerSecond = new ShapingRule(10, 5, 60_000).withShadow(true);
        RuleBook rules = new RuleBook(tenPerSecond, List.of());
        try (ShaperDriver shaper = ShaperDriver.start(settings(), rules, admission)) {
            // When: 8 records arrive at once
            for (int i = 0; i < 8; i++) {
                shaper.send("k", "r" + i);
            }

            // Then: all leave at once
            assertThat(values(shaper.readShaped())).containsExactly("r0", "r1", "r2", "r3", "r4", "r5", "r6", "r7");
            // And: the first would have passed, the next five waited 100 to 500 ms, the last two found the queue full
            List<TestRecord<byte[], byte[]>> reports = shaper.readShadow();
            assertThat(reports).extracting(r -> header(r, ShaperHeaders.SHADOW_DECISION))
                    .containsExactly("queue", "queue", "queue", "queue", "queue", "reject", "reject");
            assertThat(reports.subList(0, 5)).extracting(r -> header(r, ShaperHeaders.SHADOW_DELAY_MS))
                    .containsExactly("100", "200", "300", "400", "500");
            assertThat(reports.subList(5, 7)).extracting(r -> header(r, ShaperHeaders.REASON))
                    .containsExactly("QUEUE_FULL", "QUEUE_FULL");
            assertThat(header(reports.get(5), ShaperHeaders.DETAIL)).contains("holds 5 records, the most allowed is 5");
            assertThat(header(reports.get(0), ShaperHeaders.REASON)).isNull();
            assertThat(counted(shaper, ShaperMetrics.QUEUE_DELAY, "mode", "shadow")).isEqualTo(5);
            assertThat(counted(shaper, ShaperMetrics.REJECTED, "reason", "QUEUE_FULL", "mode", "shadow")).isEqualTo(2);
            assertThat(shaper.readRejected()).isEmpty();

            // And: the would-be queue drains at the rate: 300 ms later three have left, so three more would wait
            advance(shaper, 300);
            for (int i = 0; i < 4; i++) {
                shaper.send("k", "later-" + i);
            }
            assertThat(values(shaper.readShaped())).hasSize(4);
            List<TestRecord<byte[], byte[]>> later = shaper.readShadow();
            assertThat(later).extracting(r -> header(r, ShaperHeaders.SHADOW_DECISION))
                    .containsExactly("queue", "queue", "queue", "reject");
            assertThat(later.subList(0, 3)).extracting(r -> header(r, ShaperHeaders.SHADOW_DELAY_MS))
                    .containsExactly("300", "400", "500");
        }
    }

    @Test
    void shouldReportTheChoicesOfARecordAsTheyWouldHaveApplied() {
        ShapingRule tenPerSecond = new ShapingRule(10, 100, 60_000).withShadow(true);
        try (ShaperDriver shaper = ShaperDriver.start(settings(), new RuleBook(tenPerSecond, List.of()), admission)) {
            shaper.send("k", "first");
            shaper.send("k", "rather-not-wait", choice(ShaperHeaders.ON_LIMIT, "reject"));
            long deadline = shaper.now().toEpochMilli() + 50;
            shaper.send("k", "in-a-hurry", choice(ShaperHeaders.DEADLINE_MS, Long.toString(deadline)));

            assertThat(values(shaper.readShaped())).containsExactly("first", "rather-not-wait", "in-a-hurry");
            assertThat(shaper.readShadow()).extracting(r -> header(r, ShaperHeaders.REASON))
                    .containsExactly("RATE_LIMITED", "DEADLINE_EXCEEDED");
            // A bad header is not a limit's decision: rejected in any mode
            shaper.send("k", "bad", choice(ShaperHeaders.ON_LIMIT, "drop"));
            assertThat(values(shaper.readRejected())).containsExactly("bad");
        }
    }

    @Test
    void shouldPutEveryRuleInShadowUnderTheApplicationsShadowMode() {
        // Given: the whole application in shadow, the defaults at 10/s with an admission of 2/s
        try (ShaperDriver shaper = ShaperDriver.start(settings(ShaperConfig.MODE_CONFIG, "shadow",
                ShaperConfig.SHAPING_RATE_CONFIG, "10", ShaperConfig.ADMISSION_RATE_CONFIG, "2",
                ShaperConfig.ADMISSION_BURST_CONFIG, "2"), null, admission)) {
            for (int i = 0; i < 5; i++) {
                shaper.send("k", "r" + i);
            }

            // Then: all pass; two pass admission and would queue behind the first, three would be rate limited
            assertThat(values(shaper.readShaped())).hasSize(5);
            assertThat(shaper.readShadow()).extracting(r -> header(r, ShaperHeaders.REASON))
                    .containsExactly(null, "RATE_LIMITED", "RATE_LIMITED", "RATE_LIMITED");
            assertThat(shaper.readRejected()).isEmpty();
        }
    }

    @Test
    void shouldCountTheDecisionsWithoutAShadowTopic() {
        Map<String, String> noTopic = settings(ShaperConfig.MODE_CONFIG, "shadow", ShaperConfig.SHAPING_RATE_CONFIG,
                "10");
        noTopic.remove(ShaperConfig.SHADOW_TOPIC_CONFIG);
        try (ShaperDriver shaper = ShaperDriver.start(noTopic)) {
            shaper.send("k", "a");
            shaper.send("k", "b");

            assertThat(values(shaper.readShaped())).containsExactly("a", "b");
            assertThat(counted(shaper, ShaperMetrics.QUEUE_DELAY, "mode", "shadow")).isEqualTo(1);
        }
    }

    @Test
    void shouldKeepAKeysOrderWhenItsRuleGoesIntoShadowWithRecordsQueued() {
        // Given: key k enforced at 10/s with four records waiting
        ShapingRule tenPerSecond = new ShapingRule(10, 100, 60_000);
        KeyMatcher k = new KeyMatcher.Exact("k");
        LiveRules live = LiveRules.updatable(new RuleSet(new ShapingRule(1000, 100, 60_000), null,
                List.of(new KeyRule(k, tenPerSecond))));
        try (ShaperDriver shaper = ShaperDriver.start(settings(), new RuleBook(live), admission)) {
            for (int i = 0; i < 5; i++) {
                shaper.send("k", "r" + i);
            }
            assertThat(values(shaper.readShaped())).containsExactly("r0");

            // When: its rule goes into shadow, and more records arrive
            live.publish(live.current().withRules(List.of(new KeyRule(k, tenPerSecond.withShadow(true)))));
            shaper.send("k", "s0");
            shaper.send("k", "s1");

            // Then: they do not pass the waiting ones; all leave in order, the new ones in the slot after the last
            assertThat(shaper.readShaped()).isEmpty();
            advance(shaper, 410);
            assertThat(values(shaper.readShaped())).containsExactly("r1", "r2", "r3", "r4");
            advance(shaper, 100);
            assertThat(values(shaper.readShaped())).containsExactly("s0", "s1");
            // And: with nothing waiting any more, the key's records pass at once
            shaper.send("k", "s2");
            assertThat(values(shaper.readShaped())).containsExactly("s2");
        }
    }

    private static RecordHeader choice(String name, String value) {
        return new RecordHeader(name, value.getBytes(StandardCharsets.UTF_8));
    }
}
