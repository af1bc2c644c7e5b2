package dev.shaper.internals.capacity;

import dev.shaper.internals.redis.RedisScript;
import java.nio.charset.StandardCharsets;
import java.util.Collection;
import java.util.List;
import java.util.stream.Collectors;

/**
 * The Redis lease script ({@code dev/shaper/capacity-lease.lua}; its header states the KEYS/ARGV contract and the
 * sharing rules) and the shaper's side of that contract: the table's name, the arguments and the reply.
 */
public final class CapacityLeaseScript {

    /** Prefix of the lease table's name; the application id follows in a {hash tag}. */
    public static final String KEY_PREFIX = "shaper:lease:";

    /** The script: its source and SHA-1. */
    public static final RedisScript SCRIPT = RedisScript.load("dev/shaper/capacity-lease.lua");

    private CapacityLeaseScript() {
    }

    /** {@code shaper:lease:{<applicationId>}}: one Cluster slot for the application's leases. */
    public static String tableName(String applicationId) {
        return KEY_PREFIX + "{" + applicationId + "}";
    }

    /** {@code shaper:lease:{<applicationId>}:expiries}: when each live instance's lease ends, in the same slot. */
    public static String expiriesName(String applicationId) {
        return tableName(applicationId) + ":expiries";
    }

    /** {@code shaper:lease:{<applicationId>}:demands}: each live instance's demand, in the same slot. */
    public static String demandsName(String applicationId) {
        return tableName(applicationId) + ":demands";
    }

    /** The script's three keys: the table, the expiries and the demands. */
    static String[] keys(String applicationId) {
        return new String[] {tableName(applicationId), expiriesName(applicationId), demandsName(applicationId)};
    }

    /** The script's eight arguments. */
    static String[] args(String instanceId, double capacity, int inputPartitions, long leaseMs, PriorityDemand demand,
                         Collection<Integer> partitions, double held, long learningMs) {
        return new String[] {instanceId, number(capacity), Integer.toString(inputPartitions), Long.toString(leaseMs),
                demand.encode(),
                partitions.stream().sorted().map(String::valueOf).collect(Collectors.joining(",")), number(held),
                Long.toString(learningMs)};
    }

    /** Parses the script's reply: {@code [grant, available, instances, demand, learning]}. */
    static CapacityLeases.Lease parse(List<Object> reply) {
        if (reply == null || reply.size() != 5) {
            throw new IllegalStateException("unexpected capacity-lease reply " + reply);
        }
        return new CapacityLeases.Lease(decimal(reply.get(0)), decimal(reply.get(1)),
                ((Number) reply.get(2)).intValue(), decimal(reply.get(3)), ((Number) reply.get(4)).intValue() == 1);
    }

    private static double decimal(Object value) {
        String text = value instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : String.valueOf(value);
        return Double.parseDouble(text);
    }

    private static String number(double value) {
        return value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : Double.toString(value);
    }
}
