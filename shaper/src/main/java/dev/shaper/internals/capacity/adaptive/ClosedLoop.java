package dev.shaper.internals.capacity.adaptive;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.internals.redis.RedisUnavailableException;
import dev.shaper.internals.scheduling.BackgroundScheduler;
import java.time.Duration;
import java.util.Locale;
import java.util.function.DoubleConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The closed loop as it runs in one instance: every {@code shaper.capacity.adjust.ms} it decides from the writers'
 * feedback ({@link AdaptiveCapacity}), agrees with the other instances on one decision ({@link CapacityDecisions},
 * when Redis is configured), and applies the capacity in force to the instance (the pool's total rate).
 *
 * <ul>
 *   <li>With Redis, the instance proposes what its controller allows and adopts the decision in force, so every
 *       instance applies the same capacity within one interval.</li>
 *   <li>Without Redis, or while it cannot be reached, the instance applies its own controller's decision. The
 *       instances read the same feedback with the same controller, but not at the same moments, so they may be a step
 *       apart. Each switch between the two is logged once.</li>
 * </ul>
 * A decision that moves the applied capacity by more than 10 % is logged once. Never throws from its thread.
 */
public final class ClosedLoop implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ClosedLoop.class);
    /** A move larger than this share of the capacity is logged. */
    static final double LOGGED_MOVE = 0.10;

    /** Where the decision in force comes from. */
    public enum Source {
        /** The decision kept in Redis, one for every instance. */
        REDIS,
        /** This instance's own controller: no Redis, or Redis unreachable. */
        LOCAL;

        /** The name as a metric tag. */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * The loop as operators see it.
     *
     * @param capacity        the capacity applied now, units per second
     * @param min             the lowest it may be
     * @param max             the highest it may be ({@code shaper.shaping.total.rate})
     * @param reason          why it is where it is
     * @param decidedAtMs     when the decision in force was made, epoch milliseconds (Redis's clock with Redis)
     * @param decidedBy       the instance whose proposal the decision in force is
     * @param source          where the decision in force comes from
     * @param latencyP99Ms    the writers' p99 this instance saw at its last decision; NaN when none
     * @param errorRatio      the writers' error ratio this instance saw at its last decision; NaN when none
     * @param feedbackAgeMs   how long ago the newest report was received; -1 before the first report
     * @param feedbackPresent whether a report was received within {@code shaper.capacity.feedback.timeout.ms}
     */
    public record Status(double capacity, double min, double max, Reason reason, long decidedAtMs, String decidedBy,
                         Source source, double latencyP99Ms, double errorRatio, long feedbackAgeMs,
                         boolean feedbackPresent) {
    }

    private final AdaptiveCapacity adaptive;
    private final CapacityDecisions decisions;
    private final DoubleConsumer apply;
    private final BackgroundScheduler scheduler;
    private final LongSupplier clockMs;
    private final String instanceId;
    /**
     * Guards {@link #applied}: decisions run on the scheduler's thread, warm-ups on stream threads, and whichever
     * applies last must apply the newest capacity.
     */
    private final Object applyLock = new Object();
    private double applied = Double.NaN;
    private volatile Source source = Source.LOCAL;
    private volatile long decidedAtMs;
    private volatile String decidedBy;
    /** Read and written on the scheduler's thread only. */
    private boolean redisFailureLogged;

    /**
     * @param decisions  where the instances agree; null to decide alone (no Redis)
     * @param apply      takes each capacity to apply, units per second, when it changes (the pool's total rate)
     * @param scheduler  runs the decisions; closed with the loop
     * @param clockMs    the wall clock, epoch milliseconds: the writers' reports are timed by it
     * @param instanceId this instance's name in the decision
     */
    public ClosedLoop(AdaptiveCapacity adaptive, CapacityDecisions decisions, DoubleConsumer apply,
                      BackgroundScheduler scheduler, LongSupplier clockMs, String instanceId) {
        this.adaptive = adaptive;
        this.decisions = decisions;
        this.apply = apply;
        this.scheduler = scheduler;
        this.clockMs = clockMs;
        this.instanceId = instanceId;
        this.decidedAtMs = clockMs.getAsLong();
        this.decidedBy = instanceId;
    }

    /** Applies the starting capacity, then decides every {@code shaper.capacity.adjust.ms}. */
    public void start() {
        applyNow();
        Duration interval = Duration.ofMillis(adaptive.settings().adjustMs());
        scheduler.scheduleWithFixedDelay(this::decide, interval, interval);
        LOG.info("Capacity: {}, one decision every {} ms, {}", adaptive, interval.toMillis(), decisions == null
                ? "each instance on its own (no Redis)" : "kept in Redis " + decisions.description());
    }

    /** One decision; never throws, since a periodic task that throws is never run again. */
    void decide() {
        try {
            decideNow();
        } catch (RuntimeException e) {
            LOG.error("Capacity: a decision failed; the capacity stays at {}/s until the next",
                    round(adaptive.capacity()), e);
        }
    }

    private void decideNow() {
        long now = clockMs.getAsLong();
        CapacityDecision previous = adaptive.lastDecision();
        CapacityDecision local = decisions == null ? adaptive.decide(now) : adaptive.propose(now);
        String by = instanceId;
        long at = now;
        if (decisions != null) {
            try {
                CapacityDecisions.Agreed agreed = decisions.propose(adaptive.allowed(), adaptive.warmUpStartMs(),
                        now);
                adaptive.adopt(agreed.capacity(), agreed.reason(), agreed.warmUpStartMs(), now);
                by = agreed.decidedBy();
                at = agreed.decidedAtMs();
                if (redisFailureLogged) {
                    LOG.info("Capacity: decided with the other instances through Redis {} again",
                            decisions.description());
                }
                source = Source.REDIS;
                redisFailureLogged = false;
            } catch (RedisUnavailableException | RuntimeException e) {
                adaptive.useOwn(local);
                source = Source.LOCAL;
                if (!redisFailureLogged) {
                    LOG.warn("Capacity: cannot reach Redis {} for the shared decision ({}); this instance applies its"
                            + " own controller's decisions ({}/s now) until Redis answers; the instances may drift"
                            + " apart by a step", decisions.description(), e.getMessage(), round(local.capacity()));
                    redisFailureLogged = true;
                }
            }
        }
        decidedAtMs = at;
        decidedBy = by;
        logMove(previous, adaptive.lastDecision(), "decided by " + by + " via " + source.tag());
        applyNow();
    }

    /**
     * Starts a warm-up now (a task of this instance restored queued records at its start): the capacity applied falls
     * to the minimum at once and rises over {@code shaper.capacity.warmup.ms}; with Redis, the other instances are told
     * at their next decision.
     *
     * @return whether a warm-up started (none with {@code shaper.capacity.warmup.ms} 0, or when one started this
     *         same millisecond)
     */
    public boolean warmUp() {
        long now = clockMs.getAsLong();
        CapacityDecision previous = adaptive.lastDecision();
        if (!adaptive.startWarmUp(now, now)) {
            return false;
        }
        logMove(previous, adaptive.lastDecision(), "a warm-up from this instance's start");
        applyNow();
        return true;
    }

    /** Applies the loop's capacity if it changed; read under the lock, so the last to apply applies the newest. */
    private void applyNow() {
        synchronized (applyLock) {
            double capacity = adaptive.capacity();
            if (capacity != applied) {
                applied = capacity;
                apply.accept(capacity);
            }
        }
    }

    /** @param origin where the move comes from, for the log */
    private void logMove(CapacityDecision previous, CapacityDecision decision, String origin) {
        if (Math.abs(decision.capacity() - previous.capacity()) > LOGGED_MOVE * previous.capacity()) {
            LOG.info("Capacity: {}/s -> {}/s ({}; writers' p99 {} ms against a target of {} ms, error ratio {}; {})",
                    round(previous.capacity()), round(decision.capacity()), decision.reason().tag(),
                    round(decision.latencyP99Ms()), round(adaptive.settings().targetLatencyMs()),
                    String.format(Locale.ROOT, "%.4f", decision.errorRatio()), origin);
        }
    }

    private static String round(double value) {
        return String.format(Locale.ROOT, "%.1f", value);
    }

    /** The loop now, for the metrics and {@code GET /capacity}. */
    public Status status() {
        CapacityDecision last = adaptive.lastDecision();
        CapacityBounds bounds = adaptive.bounds();
        long now = clockMs.getAsLong();
        Long newest = adaptive.newestReceivedAtMs();
        long ageMs = newest == null ? -1 : Math.max(0, now - newest);
        boolean present = newest != null && ageMs < adaptive.settings().feedbackTimeoutMs();
        return new Status(last.capacity(), bounds.min(), bounds.max(), last.reason(), decidedAtMs, decidedBy, source,
                last.latencyP99Ms(), last.errorRatio(), ageMs, present);
    }

    /** Where the decision in force comes from now. */
    public Source source() {
        return source;
    }

    /** Stops deciding and closes the connection to Redis, if any; the capacity stays where it is. */
    @Override
    public void close() {
        scheduler.close();
        if (decisions != null) {
            decisions.close();
        }
    }
}
