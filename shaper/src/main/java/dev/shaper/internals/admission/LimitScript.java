package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisScript;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The shaper's side of the three limits scripts' contract (each script's header states it): the Redis key of an
 * admission key, the four arguments per key, and the reply per key read as a {@link SharedState}. One instance per
 * algorithm:
 * <ul>
 *   <li>{@link #TOKEN_BUCKET}: {@code token-bucket.lua} with its rates and bursts as lists, one hash per key
 *       ({@code shaper:tb:{<key>}}, one bucket per limit), three reply values per key;</li>
 *   <li>{@link #FIXED_WINDOW}: {@code fixed-window.lua}, counters {@code shaper:win:{<key>}:<window ms>:<index>},
 *       five reply values per key;</li>
 *   <li>{@link #SLIDING_WINDOW}: {@code sliding-window.lua}, the same counters, six reply values per key.</li>
 * </ul>
 * The single-token-bucket path keeps using {@link TokenBucketScript} directly.
 */
final class LimitScript {

    /** Prefix of the window counters' names; the admission key follows in a {hash tag}. */
    static final String WINDOW_PREFIX = AdmissionAlgorithm.WINDOW_KEY_PREFIX;

    static final LimitScript TOKEN_BUCKET = new LimitScript(AdmissionAlgorithm.TOKEN_BUCKET,
            new RedisScript(TokenBucketScript.SOURCE, TokenBucketScript.SHA), TokenBucketScript.KEY_PREFIX, 3);
    static final LimitScript FIXED_WINDOW = new LimitScript(AdmissionAlgorithm.FIXED_WINDOW,
            RedisScript.load("dev/shaper/fixed-window.lua"), WINDOW_PREFIX, 5);
    static final LimitScript SLIDING_WINDOW = new LimitScript(AdmissionAlgorithm.SLIDING_WINDOW,
            RedisScript.load("dev/shaper/sliding-window.lua"), WINDOW_PREFIX, 6);

    private final AdmissionAlgorithm algorithm;
    private final RedisScript script;
    private final byte[] prefix;
    private final int stride;

    private LimitScript(AdmissionAlgorithm algorithm, RedisScript script, String prefix, int stride) {
        this.algorithm = algorithm;
        this.script = script;
        this.prefix = (prefix + "{").getBytes(StandardCharsets.UTF_8);
        this.stride = stride;
    }

    /** The script of {@code algorithm}. */
    static LimitScript of(AdmissionAlgorithm algorithm) {
        return switch (algorithm) {
            case TOKEN_BUCKET -> TOKEN_BUCKET;
            case FIXED_WINDOW -> FIXED_WINDOW;
            case SLIDING_WINDOW -> SLIDING_WINDOW;
        };
    }

    static List<LimitScript> all() {
        return List.of(TOKEN_BUCKET, FIXED_WINDOW, SLIDING_WINDOW);
    }

    RedisScript script() {
        return script;
    }

    AdmissionAlgorithm algorithm() {
        return algorithm;
    }

    /** Reply values per key. */
    int stride() {
        return stride;
    }

    /** The Redis key of {@code admissionKey}: the prefix, then the admission key as a hash tag. */
    byte[] keyName(byte[] admissionKey) {
        byte[] name = new byte[prefix.length + admissionKey.length + 1];
        System.arraycopy(prefix, 0, name, 0, prefix.length);
        System.arraycopy(admissionKey, 0, name, prefix.length, admissionKey.length);
        name[name.length - 1] = '}';
        return name;
    }

    /** The two limit arguments of {@code policy} (see {@link AdmissionPolicy#scriptArgs}). */
    byte[][] limitArgs(AdmissionPolicy policy) {
        StringBuilder first = new StringBuilder();
        StringBuilder second = new StringBuilder();
        for (int i = 0; i < policy.size(); i++) {
            AdmissionLimit limit = policy.limit(i);
            String separator = i == 0 ? "" : ",";
            if (algorithm.isWindow()) {
                first.append(separator).append(AdmissionLimit.number(limit.amount()));
                second.append(separator).append(limit.periodMillis());
            } else {
                first.append(separator).append(AdmissionLimit.number(limit.ratePerSecond()));
                second.append(separator).append(AdmissionLimit.number(limit.burst()));
            }
        }
        return new byte[][] {ascii(first.toString()), ascii(second.toString())};
    }

    /**
     * The four arguments of one key of a call for {@code policy}: its limits, {@code amounts} (one, or one per
     * limit), the mode.
     */
    void putArgs(byte[][] args, int key, AdmissionPolicy policy, double[] amounts, TokenBucketScript.Mode mode) {
        byte[][] limits = policy.scriptArgs();
        args[4 * key] = limits[0];
        args[4 * key + 1] = limits[1];
        StringBuilder cost = new StringBuilder();
        for (int i = 0; i < amounts.length; i++) {
            cost.append(i == 0 ? "" : ",").append(AdmissionLimit.number(amounts[i]));
        }
        args[4 * key + 2] = ascii(cost.toString());
        args[4 * key + 3] = mode.arg();
    }

    /** Reads the reply of a call for one key of {@code limits} limits. */
    SharedState parse(List<Object> reply, int limits) {
        if (reply == null || reply.size() != stride) {
            throw new IllegalStateException("unexpected " + algorithm + " reply " + reply);
        }
        return parseAt(reply, 0, limits);
    }

    /**
     * Reads the reply of a call for several keys, {@code limits.get(k)} limits for the k-th: a key one of whose
     * counters holds another type of value is null.
     */
    List<SharedState> parseAll(List<Object> reply, List<Integer> limits) {
        if (reply == null || reply.size() != stride * limits.size()) {
            throw new IllegalStateException("unexpected " + algorithm + " reply for " + limits.size() + " keys: "
                    + reply);
        }
        List<SharedState> states = new ArrayList<>(limits.size());
        for (int k = 0; k < limits.size(); k++) {
            int at = stride * k;
            states.add(((Number) reply.get(at)).longValue() < 0 ? null : parseAt(reply, at, limits.get(k)));
        }
        return states;
    }

    private SharedState parseAt(List<Object> reply, int at, int limits) {
        boolean allowed = ((Number) reply.get(at)).longValue() == 1;
        double[] left = numbers(reply.get(at + 1), limits);
        long[] waits = whole(numbers(reply.get(at + 2), limits));
        if (!algorithm.isWindow()) {
            return new SharedState(allowed, left, waits, null, null, null);
        }
        double[] count = numbers(reply.get(at + 3), limits);
        double[] previous = algorithm == AdmissionAlgorithm.SLIDING_WINDOW ? numbers(reply.get(at + 4), limits)
                : new double[limits];
        long[] until = whole(numbers(reply.get(at + stride - 1), limits));
        return new SharedState(allowed, left, waits, count, previous, until);
    }

    /** A reply value: an integer, or a string of one number or of {@code n} comma-separated ones. */
    private static double[] numbers(Object value, int n) {
        double[] numbers = new double[n];
        if (value instanceof Number number) {
            if (n != 1) {
                throw new IllegalStateException("expected " + n + " values, got " + value);
            }
            numbers[0] = number.doubleValue();
            return numbers;
        }
        String text = value instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : String.valueOf(value);
        String[] parts = text.split(",", -1);
        if (parts.length != n) {
            throw new IllegalStateException("expected " + n + " values, got " + text);
        }
        for (int i = 0; i < n; i++) {
            numbers[i] = Double.parseDouble(parts[i]);
        }
        return numbers;
    }

    private static long[] whole(double[] values) {
        long[] whole = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            whole[i] = (long) values[i];
        }
        return whole;
    }

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
