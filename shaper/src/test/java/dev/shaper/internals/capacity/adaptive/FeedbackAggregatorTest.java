package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import dev.shaper.feedback.FeedbackReport;
import dev.shaper.internals.capacity.adaptive.FeedbackSignal.Freshness;
import org.junit.jupiter.api.Test;

/** How the writers' reports become one signal per decision, on a clock the test advances (1 s decisions). */
class FeedbackAggregatorTest {

    /** A pinned start: 2025-11-24T16:00:00Z. */
    private static final long START_MS = 1_764_000_000_000L;
    private static final long TIMEOUT_MS = 5_000;

    private final FeedbackAggregator aggregator = new FeedbackAggregator(TIMEOUT_MS);

    /** A report received as its window ended (a writer's clock in step with the shaper's, no delay). */
    private boolean add(String writerId, FeedbackReport report) {
        return aggregator.add(writerId, report, report.atMs());
    }

    private static FeedbackReport report(long atMs, long writes, long errors, Double p99Ms) {
        return new FeedbackReport(atMs, 1_000, writes, errors, p99Ms);
    }

    @Test
    void shouldAddUpTheWritersAndTakeTheLargestP99WhenSeveralReportInOneInterval() {
        // Given: three writers report the second before the decision at START + 1 s; the third wrote nothing, but
        // sent a p99 anyway
        long decisionMs = START_MS + 1_000;
        add("writer-a", report(decisionMs - 30, 600, 0, 12.0));
        add("writer-b", report(decisionMs - 20, 390, 10, 48.5));
        add("writer-c", report(decisionMs - 10, 0, 0, 900.0));

        // When: the decision takes them
        FeedbackSignal signal = aggregator.take(decisionMs);

        // Then: one signal: three writers, the writes and errors added up, the largest p99 of those that wrote
        assertThat(signal.freshness()).isEqualTo(Freshness.NEW_REPORTS);
        assertThat(signal.writers()).isEqualTo(3);
        assertThat(signal.writes()).isEqualTo(990);
        assertThat(signal.errors()).isEqualTo(10);
        assertThat(signal.errorRatio()).isCloseTo(0.01, within(1e-12));
        assertThat(signal.latencyP99Ms()).isEqualTo(48.5);
    }

    @Test
    void shouldCountAReportOnceWhenItArrivesTwice() {
        // Given: a writer's report, and the same report again (a producer's retry)
        FeedbackReport report = report(START_MS + 900, 500, 0, 20.0);
        assertThat(add("writer-a", report)).isTrue();

        // When: it arrives again, before the decision and after it
        boolean again = add("writer-a", report);
        FeedbackSignal first = aggregator.take(START_MS + 1_000);
        boolean afterDecision = add("writer-a", report);

        // Then: it counts in one decision only, and the copies are counted as duplicates
        assertThat(again).isFalse();
        assertThat(afterDecision).isFalse();
        assertThat(first.writes()).isEqualTo(500);
        assertThat(aggregator.take(START_MS + 2_000).freshness()).isEqualTo(Freshness.NOTHING_NEW);
        assertThat(aggregator.duplicateReports()).isEqualTo(2);
    }

    @Test
    void shouldIgnoreAReportWhenItEndsBeforeOneAlreadyTakenFromTheSameWriter() {
        // Given: a writer's report of the second to START + 2 s
        add("writer-a", report(START_MS + 2_000, 500, 0, 20.0));
        aggregator.take(START_MS + 2_000);

        // When: an older report of the same writer arrives, and an equally old one of another writer
        boolean older = add("writer-a", report(START_MS + 1_000, 400, 0, 80.0));
        boolean otherWriter = add("writer-b", report(START_MS + 1_000, 400, 0, 80.0));

        // Then: the writer's own older report is out of order; the other writer's counts
        assertThat(older).isFalse();
        assertThat(otherWriter).isTrue();
        FeedbackSignal signal = aggregator.take(START_MS + 3_000);
        assertThat(signal.writers()).isEqualTo(1);
        assertThat(signal.writes()).isEqualTo(400);
    }

    @Test
    void shouldCountAReportInTheNextDecisionWhenItArrivesAfterTheDecisionItsWindowEndedBefore() {
        // Given: a report whose window ended 10 ms before a decision, still on its way at the decision
        FeedbackSignal atDecision = aggregator.take(START_MS + 1_000);

        // When: it arrives just after, and the next decision comes
        add("writer-a", report(START_MS + 990, 500, 0, 20.0));
        FeedbackSignal next = aggregator.take(START_MS + 2_000);

        // Then: it counts in the next decision
        assertThat(atDecision.freshness()).isEqualTo(Freshness.NO_FEEDBACK);
        assertThat(next.freshness()).isEqualTo(Freshness.NEW_REPORTS);
        assertThat(next.writes()).isEqualTo(500);
    }

    @Test
    void shouldIgnoreAReportAsLateWhenItEndedATimeoutOrMoreBeforeItWasReceived() {
        // Given: a report received exactly a timeout after its window ended, and a fresh one of another writer
        long decisionMs = START_MS + 10_000;
        boolean late = aggregator.add("writer-late", report(decisionMs - 100 - TIMEOUT_MS, 500, 0, 500.0),
                decisionMs - 100);
        add("writer-b", report(decisionMs - 100, 300, 0, 20.0));

        // When: the decision takes them
        FeedbackSignal signal = aggregator.take(decisionMs);

        // Then: only the fresh one counts; the late one is counted as late
        assertThat(late).isFalse();
        assertThat(signal.writers()).isEqualTo(1);
        assertThat(signal.writes()).isEqualTo(300);
        assertThat(signal.latencyP99Ms()).isEqualTo(20.0);
        assertThat(aggregator.lateReports()).isEqualTo(1);
    }

    @Test
    void shouldJudgeFreshnessByWhenReportsWereReceivedWhenAWritersClockIsAhead() {
        // Given: a writer whose clock is 4 s ahead (within the timeout: its reports are taken)
        long receivedMs = START_MS + 1_000;
        aggregator.add("writer-ahead", report(receivedMs + 4_000, 500, 0, 20.0), receivedMs);
        assertThat(aggregator.take(receivedMs).freshness()).isEqualTo(Freshness.NEW_REPORTS);

        // When: it falls silent
        // Then: feedback is missing a timeout after the report was received, not a timeout after its own clock's end
        assertThat(aggregator.take(receivedMs + TIMEOUT_MS - 1).freshness()).isEqualTo(Freshness.NOTHING_NEW);
        assertThat(aggregator.take(receivedMs + TIMEOUT_MS).freshness()).isEqualTo(Freshness.NO_FEEDBACK);
        assertThat(aggregator.newestReceivedAtMs()).isEqualTo(receivedMs);
    }

    @Test
    void shouldTakeAWritersReportsAgainOnceItsClockCameBackAndATimeoutPassed() {
        // Given: a writer's report from a clock 4 s ahead, then its clock set right: its next reports end earlier
        aggregator.add("writer-a", report(START_MS + 5_000, 500, 0, 20.0), START_MS + 1_000);
        aggregator.take(START_MS + 1_000);
        boolean meanwhile = aggregator.add("writer-a", report(START_MS + 2_000, 400, 0, 25.0), START_MS + 2_000);

        // When: a timeout after its report from the future was received
        aggregator.take(START_MS + 1_000 + TIMEOUT_MS);
        boolean after = aggregator.add("writer-a", report(START_MS + 4_500, 300, 0, 30.0), START_MS + 6_500);

        // Then: what ended before the report from the future was out of order; afterwards the writer counts again
        assertThat(meanwhile).isFalse();
        assertThat(after).isTrue();
        assertThat(aggregator.take(START_MS + 7_000).writes()).isEqualTo(300);
    }

    @Test
    void shouldAddUpSeveralReportsOfOneWriterWhenItReportsMoreOftenThanDecisionsAreMade() {
        // Given: one writer reports every 250 ms
        for (int i = 1; i <= 4; i++) {
            add("writer-a", new FeedbackReport(START_MS + 250L * i, 250, 100, i == 4 ? 1 : 0,
                    10.0 * i));
        }

        // When: a decision every second
        FeedbackSignal signal = aggregator.take(START_MS + 1_000);

        // Then: one writer, four windows' writes and errors, the largest of their p99s
        assertThat(signal.writers()).isEqualTo(1);
        assertThat(signal.writes()).isEqualTo(400);
        assertThat(signal.errors()).isEqualTo(1);
        assertThat(signal.latencyP99Ms()).isEqualTo(40.0);
    }

    @Test
    void shouldSayNothingNewWhenNoReportArrivedSinceTheLastDecisionButFeedbackIsFresh() {
        // Given: a report taken at START + 1 s
        add("writer-a", report(START_MS + 1_000, 500, 0, 20.0));
        aggregator.take(START_MS + 1_000);

        // When/Then: for the next decisions within the timeout, nothing new; from the timeout on, no feedback
        assertThat(aggregator.take(START_MS + 2_000).freshness()).isEqualTo(Freshness.NOTHING_NEW);
        assertThat(aggregator.take(START_MS + 5_999).freshness()).isEqualTo(Freshness.NOTHING_NEW);
        assertThat(aggregator.take(START_MS + 6_000).freshness()).isEqualTo(Freshness.NO_FEEDBACK);
    }

    @Test
    void shouldSayNoFeedbackWhenNoReportHasEverArrived() {
        FeedbackSignal signal = aggregator.take(START_MS);
        assertThat(signal.freshness()).isEqualTo(Freshness.NO_FEEDBACK);
        assertThat(signal.hasReports()).isFalse();
        assertThat(signal.hasLatency()).isFalse();
    }

    @Test
    void shouldHaveNoLatencyWhenNoWriterAttemptedAnything() {
        // Given: writers that are up but idle: their reports have no p99
        add("writer-a", report(START_MS + 900, 0, 0, null));
        add("writer-b", report(START_MS + 950, 0, 0, null));

        // When: the decision takes them
        FeedbackSignal signal = aggregator.take(START_MS + 1_000);

        // Then: two writers alive, nothing attempted, no latency, no errors
        assertThat(signal.writers()).isEqualTo(2);
        assertThat(signal.attempts()).isZero();
        assertThat(signal.errorRatio()).isZero();
        assertThat(signal.hasLatency()).isFalse();
    }

    @Test
    void shouldAcceptAWritersNewReportWhenItsPreviousOneHasAgedOut() {
        // Given: a writer whose last report is long gone (it restarted)
        add("writer-a", report(START_MS + 1_000, 500, 0, 20.0));
        aggregator.take(START_MS + 1_000);
        aggregator.take(START_MS + 60_000);

        // When: it reports again
        boolean accepted = add("writer-a", report(START_MS + 60_500, 100, 0, 15.0));

        // Then: the report counts
        assertThat(accepted).isTrue();
        assertThat(aggregator.take(START_MS + 61_000).writes()).isEqualTo(100);
    }
}
