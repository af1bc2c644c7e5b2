package dev.shaper.internals.capacity.adaptive;

import dev.shaper.internals.capacity.adaptive.CapacityDecision.Reason;
import dev.shaper.internals.redis.RedisScript;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Redis decision script ({@code dev/shaper/capacity-decision.lua}; its header states the KEYS/ARGV contract) and
 * the shaper's side of that contract: the key's name, the arguments and the reply.
 */
public final class CapacityDecisionScript {

    /** Prefix of the decision's key; the application id follows in the lease table's {hash tag}. */
    public static final String KEY_PREFIX = "shaper:capdecision:";

    /** The script: its source and SHA-1. */
    public static final RedisScript SCRIPT = RedisScript.load("dev/shaper/capacity-decision.lua");

    private CapacityDecisionScript() {
    }

    /** {@code shaper:capdecision:{<applicationId>}}: the Cluster slot of the application's leases. */
    public static String keyName(String applicationId) {
        return KEY_PREFIX + "{" + applicationId + "}";
    }

    /**
     * The script's six arguments; the warm-up's start ({@code warmUpStartMs}, 0 for none) goes as its age at
     * {@code nowMs}, the caller's clock.
     */
    static String[] args(String instanceId, CapacityDecision proposal, long adjustMs, long keepMs,
                         long warmUpStartMs, long nowMs) {
        if (adjustMs <= 0 || keepMs <= 0) {
            // PEXPIRE 0 would delete the decision at once: every call would find none and store its own.
            throw new IllegalArgumentException("need an interval and a keep time > 0 ms, got " + adjustMs + " and "
                    + keepMs);
        }
        return new String[] {instanceId, Double.toString(proposal.capacity()), proposal.reason().tag(),
                Long.toString(adjustMs), Long.toString(keepMs),
                Long.toString(warmUpStartMs > 0 ? Math.max(0, nowMs - warmUpStartMs) : -1)};
    }

    /**
     * Parses the script's reply: {@code [capacity, reason, at, by, stored, warmup age]}, the warm-up's start by the
     * caller's clock at {@code nowMs}.
     */
    static CapacityDecisions.Agreed parse(List<Object> reply, long nowMs) {
        if (reply == null || reply.size() != 6) {
            throw new IllegalStateException("unexpected capacity-decision reply " + reply);
        }
        return new CapacityDecisions.Agreed(Double.parseDouble(text(reply.get(0))), Reason.ofTag(text(reply.get(1))),
                ((Number) reply.get(2)).longValue(), text(reply.get(3)), ((Number) reply.get(4)).intValue() == 1,
                warmUpStart(Long.parseLong(text(reply.get(5))), nowMs));
    }

    private static long warmUpStart(long ageMs, long nowMs) {
        return ageMs < 0 ? 0 : Math.max(1, nowMs - ageMs);
    }

    private static String text(Object value) {
        return value instanceof byte[] b ? new String(b, StandardCharsets.UTF_8) : String.valueOf(value);
    }
}
