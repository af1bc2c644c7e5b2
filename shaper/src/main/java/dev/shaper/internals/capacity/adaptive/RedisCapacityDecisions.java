package dev.shaper.internals.capacity.adaptive;

import dev.shaper.internals.redis.RedisClients;
import dev.shaper.internals.redis.RedisScriptRunner;
import dev.shaper.internals.redis.RedisUnavailableException;

/**
 * The application's capacity decision in Redis: one call of the decision script per interval per instance, on a
 * connection of its own. EVALSHA, and EVAL when Redis answers NOSCRIPT (after a restart or {@code SCRIPT FLUSH}). Any
 * failure, a reply the shaper cannot read included, surfaces as {@link RedisUnavailableException} within the timeout.
 */
public final class RedisCapacityDecisions implements CapacityDecisions {

    /**
     * Where the decision lives, and on what terms.
     *
     * @param adjustMs how old the decision in force must be before a proposal replaces it
     * @param keepMs   how long a decision is kept without a newer one (more than 0)
     */
    public record Terms(String applicationId, String instanceId, long adjustMs, long keepMs) {
    }

    private final RedisScriptRunner redis;
    private final Terms terms;
    private final String[] keys;

    /**
     * @param redis the instance's Redis client, on which this opens a connection of its own; its timeout bounds each
     *              call, a slower Redis counting as down
     */
    public RedisCapacityDecisions(RedisClients.Client redis, Terms terms) {
        this.redis = new RedisScriptRunner(redis);
        this.terms = terms;
        this.keys = new String[] {CapacityDecisionScript.keyName(terms.applicationId())};
    }

    @Override
    public Agreed propose(CapacityDecision proposal, long warmUpStartMs, long nowMs)
            throws RedisUnavailableException {
        String[] args = CapacityDecisionScript.args(terms.instanceId(), proposal, terms.adjustMs(), terms.keepMs(),
                warmUpStartMs, nowMs);
        return redis.run(CapacityDecisionScript.SCRIPT, keys, args, reply -> CapacityDecisionScript.parse(reply, nowMs));
    }

    @Override
    public String description() {
        return redis.description();
    }

    @Override
    public void close() {
        redis.close();
    }
}
