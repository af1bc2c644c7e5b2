package dev.shaper.internals.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A rule book over live rules answers from the version in force, and forgets what it remembered of the last one. */
class LiveRuleBookTest {

    private static final ShapingRule DEFAULTS = new ShapingRule(100, 1_000, 60_000);
    private static final byte[] KEY = "tenant-1".getBytes(StandardCharsets.UTF_8);

    @Test
    void shouldAnswerFromANewVersionAtTheNextLookUp() {
        LiveRules live = LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of(
                new KeyRule(new KeyMatcher.Prefix("tenant-"), new ShapingRule(10, 5, 1_000)))));
        RuleBook book = new RuleBook(live);
        assertThat(book.ruleFor(KEY).ratePerSecond()).isEqualTo(10); // now remembered

        live.publish(live.current().withRules(List.of(
                new KeyRule(new KeyMatcher.Prefix("tenant-"), new ShapingRule(5, 5, 1_000)))));

        assertThat(book.ruleFor(KEY).ratePerSecond()).isEqualTo(5);
        assertThat(book.copy().ruleFor(KEY).ratePerSecond()).isEqualTo(5);
    }

    @Test
    void shouldFallBackToTheDefaultsWhenTheRuleIsGone() {
        LiveRules live = LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of(
                new KeyRule(new KeyMatcher.Exact("tenant-1"), new ShapingRule(10, 5, 1_000)))));
        RuleBook book = new RuleBook(live);
        book.ruleFor(KEY);

        live.publish(live.current().withRules(List.of()));

        assertThat(book.ruleFor(KEY)).isEqualTo(DEFAULTS);
    }

    @Test
    void shouldNeedTheAdmissionStageWhenRulesMayChangeEvenWithoutALimitNow() {
        RuleSet none = new RuleSet(DEFAULTS, null, List.of());

        assertThat(new RuleBook(LiveRules.fixed(none)).hasAdmission()).isFalse();
        assertThat(new RuleBook(LiveRules.updatable(none)).hasAdmission()).isTrue();
    }

    @Test
    void shouldAnswerAnAdmissionLimitThatArrivesLater() {
        LiveRules live = LiveRules.updatable(new RuleSet(DEFAULTS, null, List.of()));
        RuleBook book = new RuleBook(live);
        assertThat(book.admissionFor(KEY)).isNull();

        live.publish(live.current().withRules(List.of(new KeyRule(new KeyMatcher.Prefix("tenant-"), DEFAULTS,
                AdmissionPolicy.of(new AdmissionRule(3, 6))))));

        assertThat(book.admissionFor(KEY)).isEqualTo(AdmissionPolicy.of(new AdmissionRule(3, 6)));
        assertThat(book.admissionFor("other".getBytes(StandardCharsets.UTF_8))).isNull();
    }
}
