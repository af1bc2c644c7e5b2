package dev.shaper.internals.capacity.adaptive;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.internals.redis.RedisUnavailableException;

/**
 * Where the instances of one application agree on one capacity ({@link RedisCapacityDecisions} in production): each
 * proposes its decision once per interval and is told the decision in force, which it then applies. At most one
 * proposal per interval becomes the decision, so every instance applies the same capacity within one interval.
 */
public interface CapacityDecisions extends AutoCloseable {

    /**
     * The decision in force.
     *
     * @param capacity      the capacity the controllers allow, units per second, before any warm-up's ceiling
     * @param reason        why the controller that proposed it decided so
     * @param decidedAtMs   when it was decided, epoch milliseconds by the keeper's clock
     * @param decidedBy     the instance whose proposal it was
     * @param ours          whether it is the caller's proposal
     * @param warmUpStartMs the start of the newest warm-up any instance reported, epoch milliseconds by the caller's
     *                      clock (the instances exchange its age, never their clocks); 0 for none
     */
    record Agreed(double capacity, Reason reason, long decidedAtMs, String decidedBy, boolean ours,
                  long warmUpStartMs) {
    }

    /**
     * Proposes a decision and returns the one in force: the proposal itself if the decision in force was at least one
     * interval old, or absent.
     *
     * @param proposal      the capacity this instance's controller allows, and why
     * @param warmUpStartMs the start of the newest warm-up this instance knows, epoch milliseconds; 0 for none
     * @param nowMs         this instance's clock now, which {@code warmUpStartMs} and the answer's count by
     * @throws RedisUnavailableException when the keeper cannot be reached within the timeout
     */
    Agreed propose(CapacityDecision proposal, long warmUpStartMs, long nowMs) throws RedisUnavailableException;

    /** Where the decision is kept, without credentials, for logs. */
    String description();

    @Override
    void close();
}
