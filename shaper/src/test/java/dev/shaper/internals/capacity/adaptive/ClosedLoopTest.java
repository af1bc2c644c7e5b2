package dev.shaper.internals.capacity.adaptive;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.shaper.feedback.FeedbackReport;
import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.internals.redis.RedisUnavailableException;
import dev.shaper.testsupport.ManualScheduler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The loop in one instance, on a clock the test advances, with decisions the test answers as Redis would: what it
 * applies with and without a shared decision, when Redis fails, and when a warm-up starts here or elsewhere.
 */
class ClosedLoopTest {

    private static final double MAX = 400;
    private static final double MIN = 80;
    private static final long ADJUST_MS = 500;
    private static final long TIMEOUT_MS = 2_000;
    private static final long WARMUP_MS = 10_000;
    /** A pinned start: 2025-11-24T16:00:00Z. */
    private static final long START_MS = 1_764_000_000_000L;

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final AdaptiveSettings settings = new AdaptiveSettings(new CapacityBounds(MIN, MAX), 50, 0.01, ADJUST_MS,
            TIMEOUT_MS, WARMUP_MS, ControllerKind.AIMD);
    private final AdaptiveCapacity adaptive = AdaptiveCapacity.start(settings, START_MS, false);
    private final List<Double> applied = new ArrayList<>();
    private final ScriptedDecisions redis = new ScriptedDecisions();
    private final ListAppender<ILoggingEvent> logs = new ListAppender<>();
    private final Logger logger = (Logger) LoggerFactory.getLogger(ClosedLoop.class);

    /** Decisions the test answers: the proposal itself, one the test sets, or a failure; each proposal recorded. */
    private final class ScriptedDecisions implements CapacityDecisions {
        final List<CapacityDecision> proposals = new ArrayList<>();
        final List<Long> warmUps = new ArrayList<>();
        /** What the loop showed while each proposal was on its way to Redis. */
        final List<Double> shownMeanwhile = new ArrayList<>();
        ClosedLoop loop;
        Agreed answer;
        boolean down;

        @Override
        public Agreed propose(CapacityDecision proposal, long warmUpStartMs, long nowMs)
                throws RedisUnavailableException {
            proposals.add(proposal);
            warmUps.add(warmUpStartMs);
            if (loop != null) {
                shownMeanwhile.add(loop.status().capacity());
            }
            if (down) {
                throw new RedisUnavailableException("connection refused", null);
            }
            return answer != null ? answer
                    : new Agreed(proposal.capacity(), proposal.reason(), clockMs(), "me", true, warmUpStartMs);
        }

        @Override
        public String description() {
            return "redis://test:6379";
        }

        @Override
        public void close() {
        }
    }

    @BeforeEach
    void captureLogs() {
        logs.start();
        logger.addAppender(logs);
    }

    @AfterEach
    void releaseLogs() {
        logger.detachAppender(logs);
        logs.stop();
    }

    /** The loop's wall clock: the scheduler's, from the pinned start. */
    private long clockMs() {
        return START_MS + scheduler.nanoTime() / 1_000_000;
    }

    private ClosedLoop loop(CapacityDecisions decisions) {
        ClosedLoop loop = new ClosedLoop(adaptive, decisions, applied::add, scheduler, this::clockMs, "me");
        loop.start();
        return loop;
    }

    /** One writer reports a window ending now, then one interval passes (one decision). */
    private void interval(double p99Ms) {
        long now = clockMs();
        adaptive.onReport("writer", new FeedbackReport(now, ADJUST_MS, 200, 0, p99Ms), now);
        scheduler.advance(Duration.ofMillis(ADJUST_MS));
    }

    private double lastApplied() {
        return applied.get(applied.size() - 1);
    }

    @Test
    void shouldApplyItsOwnControllersDecisionsWhenThereIsNoRedis() {
        // Given: a loop without Redis, at the maximum
        ClosedLoop loop = loop(null);
        assertThat(applied).containsExactly(MAX);

        // When: the writers report a p99 of 200 ms (target 50) for two intervals
        interval(200);
        interval(200);

        // Then: each decision cut 30 %, applied at once, decided locally
        assertThat(applied).containsExactly(MAX, MAX * 0.7, MAX * 0.49);
        ClosedLoop.Status status = loop.status();
        assertThat(status.source()).isEqualTo(ClosedLoop.Source.LOCAL);
        assertThat(status.reason()).isEqualTo(Reason.LATENCY);
        assertThat(status.latencyP99Ms()).isEqualTo(200);
        assertThat(status.decidedBy()).isEqualTo("me");
    }

    @Test
    void shouldShowTheDecisionInForceWhileItsOwnProposalIsOnItsWay() {
        // Given: a loop on Redis at the maximum, where another instance decided to stay at the maximum
        ClosedLoop loop = loop(redis);
        redis.loop = loop;
        redis.answer = new CapacityDecisions.Agreed(MAX, Reason.HEALTHY, START_MS + 400, "other", false, 0);

        // When: this instance's writers report a p99 of 200 ms (target 50): it proposes a cut of 30 %
        interval(200);

        // Then: while the proposal was on its way, the loop showed the maximum, never the cut no one agreed on
        assertThat(redis.proposals).extracting(CapacityDecision::capacity).containsExactly(MAX * 0.7);
        assertThat(redis.shownMeanwhile).containsExactly(MAX);
        assertThat(loop.status().capacity()).isEqualTo(MAX);
        assertThat(applied).containsOnly(MAX);

        // And when: Redis is down at the next interval, its own proposal is the decision in force
        redis.down = true;
        interval(200);
        assertThat(loop.status().capacity()).isCloseTo(MAX * 0.7, within(1e-9));
        assertThat(lastApplied()).isCloseTo(MAX * 0.7, within(1e-9));
    }

    @Test
    void shouldApplyTheDecisionInForceAndGoOnFromItWhenAnotherInstanceDecided() {
        // Given: a loop on Redis, where another instance decided 280/s for the latency
        ClosedLoop loop = loop(redis);
        redis.answer = new CapacityDecisions.Agreed(280, Reason.LATENCY, START_MS + 400, "other", false, 0);

        // When: an interval of healthy feedback passes
        interval(20);

        // Then: this instance proposed its own healthy rise, and applies the other's decision
        assertThat(redis.proposals).extracting(CapacityDecision::reason).containsExactly(Reason.HEALTHY);
        assertThat(lastApplied()).isEqualTo(280);
        ClosedLoop.Status status = loop.status();
        assertThat(status.source()).isEqualTo(ClosedLoop.Source.REDIS);
        assertThat(status.decidedBy()).isEqualTo("other");
        assertThat(status.decidedAtMs()).isEqualTo(START_MS + 400);
        assertThat(status.reason()).isEqualTo(Reason.LATENCY);

        // And when: the next interval is healthy too, and this instance's proposal is the decision
        redis.answer = null;
        interval(20);

        // Then: its controller went on from 280/s (AIMD: + 400/20 per second, 10/s per half second)
        assertThat(redis.proposals.get(1).capacity()).isCloseTo(290, within(1e-9));
        assertThat(lastApplied()).isCloseTo(290, within(1e-9));
    }

    @Test
    void shouldApplyItsOwnDecisionsWhileRedisIsDownAndTheSharedOneWhenItIsBack() {
        // Given: a loop on Redis
        ClosedLoop loop = loop(redis);
        interval(200);
        assertThat(loop.source()).isEqualTo(ClosedLoop.Source.REDIS);

        // When: Redis is down for three intervals
        redis.down = true;
        interval(200);
        interval(200);
        interval(200);

        // Then: the instance went on with its own controller, and said so once
        assertThat(loop.source()).isEqualTo(ClosedLoop.Source.LOCAL);
        assertThat(lastApplied()).isCloseTo(MAX * Math.pow(0.7, 4), within(1e-9));
        assertThat(messages("cannot reach Redis")).hasSize(1);

        // And when: Redis is back with another instance's decision
        redis.down = false;
        redis.answer = new CapacityDecisions.Agreed(150, Reason.LATENCY, START_MS, "other", false, 0);
        interval(200);

        // Then: the shared decision applies again, and that is said once
        assertThat(loop.source()).isEqualTo(ClosedLoop.Source.REDIS);
        assertThat(lastApplied()).isEqualTo(150);
        assertThat(messages("through Redis redis://test:6379 again")).hasSize(1);
    }

    @Test
    void shouldFallToTheMinimumAtOnceAndTellTheOthersWhenAWarmUpStartsHere() {
        // Given: a loop on Redis at the maximum
        ClosedLoop loop = loop(redis);
        interval(20);
        assertThat(lastApplied()).isEqualTo(MAX);

        // When: a task restores queued records, half a second in
        long startedAt = clockMs();
        assertThat(loop.warmUp()).isTrue();

        // Then: the minimum applies at once, and the next proposal tells the others when the warm-up started
        assertThat(lastApplied()).isEqualTo(MIN);
        assertThat(loop.status().reason()).isEqualTo(Reason.WARMING_UP);
        scheduler.advance(Duration.ofMillis(ADJUST_MS));
        assertThat(redis.warmUps.get(redis.warmUps.size() - 1)).isEqualTo(startedAt);

        // And: 5 s after its start (half the warm-up), no new report meanwhile, the ceiling is half way up
        scheduler.advance(Duration.ofMillis(9 * ADJUST_MS));
        assertThat(lastApplied()).isCloseTo(MIN + (MAX - MIN) / 2, within(1e-9));
        assertThat(loop.status().reason()).isEqualTo(Reason.WARMING_UP);
    }

    @Test
    void shouldWarmUpWhenAnotherInstanceReportsAWarmUp() {
        // Given: a loop on Redis at the maximum
        loop(redis);
        interval(20);

        // When: the decision in force comes with a warm-up another instance started 2 s ago
        long otherStart = clockMs() - 2_000;
        redis.answer = new CapacityDecisions.Agreed(MAX, Reason.HEALTHY, clockMs(), "other", false, otherStart);
        interval(20);

        // Then: this instance applies the same ceiling: 2.5 s into a 10 s warm-up from 80 to 400
        assertThat(lastApplied()).isCloseTo(MIN + (MAX - MIN) * 2_500 / WARMUP_MS, within(1e-9));
    }

    @Test
    void shouldLogADecisionOnceWhenItMovesTheCapacityByMoreThanTenPercent() {
        // Given: a loop without Redis at the maximum
        loop(null);

        // When: one cut of 30 %, then rises of 2.5 % (20/s each) until the maximum
        interval(200);
        for (int i = 0; i < 20; i++) {
            interval(20);
        }

        // Then: the cut is logged, with why; the small rises are not
        assertThat(lastApplied()).isEqualTo(MAX);
        List<String> moves = messages("/s -> ");
        assertThat(moves).hasSize(1);
        assertThat(moves.get(0)).contains("400.0/s -> 280.0/s", "latency", "p99 200.0 ms", "target of 50.0 ms");
    }

    @Test
    void shouldReportTheFeedbacksAgeAndAbsenceWhenTheWritersFallSilent() {
        // Given: a loop with one report, 300 ms old
        ClosedLoop loop = loop(null);
        assertThat(loop.status().feedbackAgeMs()).isEqualTo(-1);
        assertThat(loop.status().feedbackPresent()).isFalse();
        interval(20);
        scheduler.advance(Duration.ofMillis(300));
        assertThat(loop.status().feedbackAgeMs()).isEqualTo(ADJUST_MS + 300);
        assertThat(loop.status().feedbackPresent()).isTrue();

        // When: the writers stay silent past the timeout
        scheduler.advance(Duration.ofMillis(TIMEOUT_MS));

        // Then: feedback is absent, and the capacity holds for lack of it
        assertThat(loop.status().feedbackPresent()).isFalse();
        assertThat(loop.status().reason()).isEqualTo(Reason.NO_FEEDBACK);
        assertThat(lastApplied()).isEqualTo(MAX);
    }

    private List<String> messages(String containing) {
        return logs.list.stream().map(ILoggingEvent::getFormattedMessage).filter(m -> m.contains(containing))
                .toList();
    }
}
