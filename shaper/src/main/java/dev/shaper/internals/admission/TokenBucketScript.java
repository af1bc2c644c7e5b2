package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisScript;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * The Redis token-bucket script ({@code dev/shaper/token-bucket.lua}; its header states the KEYS/ARGV
 * contract) and the shaper's side of that contract: bucket names and argument encoding.
 */
public final class TokenBucketScript {

    /** Prefix of the shaper's bucket names; the admission key follows in a {hash tag}. */
    public static final String KEY_PREFIX = "shaper:tb:";

    /**
     * The bucket the admission's health check charges nothing to, to learn whether the script may run: outside
     * {@link #KEY_PREFIX}, so that no admission key names it, and under {@code shaper:} like every key of the shaper.
     */
    public static final String PROBE_KEY = "shaper:probe:{admission}";

    private static final RedisScript SCRIPT = RedisScript.load("dev/shaper/token-bucket.lua");

    /** The script's source. */
    public static final String SOURCE = SCRIPT.source();

    /** SHA-1 of {@link #SOURCE}, as EVALSHA wants it. */
    public static final String SHA = SCRIPT.sha();

    /** What to do with the cost. */
    public enum Mode {
        /** Take the tokens only if enough exist. */
        TAKE,
        /** Take the tokens whatever the balance (it may go negative). */
        CHARGE,
        /** Lower the balance to at most the cost; never raise it. */
        CAP;

        private final byte[] arg = name().toLowerCase(java.util.Locale.ROOT).getBytes(StandardCharsets.US_ASCII);

        /** The script's argument for this mode; shared, not to be changed. */
        byte[] arg() {
            return arg;
        }
    }

    /** The script's answer. */
    public record Result(boolean allowed, double tokensLeft, long waitMicros) {

        public AdmissionDecision toDecision() {
            // Whole microseconds to whole milliseconds, rounded up in integers: waitMicros / 1e6 * 1000 is
            // not exact in binary floating point and made e.g. 2 007 000 us a retry after 2008 ms.
            return allowed ? AdmissionDecision.allowed(tokensLeft)
                    : new AdmissionDecision(false, tokensLeft, Math.max(1, (waitMicros + 999) / 1000));
        }
    }

    private TokenBucketScript() {
    }

    /** {@code shaper:tb:{<key>}}: one Cluster slot per bucket. */
    public static byte[] bucketName(byte[] admissionKey) {
        byte[] prefix = (KEY_PREFIX + "{").getBytes(StandardCharsets.UTF_8);
        byte[] name = new byte[prefix.length + admissionKey.length + 1];
        System.arraycopy(prefix, 0, name, 0, prefix.length);
        System.arraycopy(admissionKey, 0, name, prefix.length, admissionKey.length);
        name[name.length - 1] = '}';
        return name;
    }

    /** The script's four arguments for one bucket. */
    static byte[][] args(AdmissionRule rule, double cost, Mode mode) {
        byte[][] args = new byte[4][];
        putArgs(args, 0, ruleArgs(rule), cost, mode);
        return args;
    }

    /** The rate and burst arguments of {@code rule}: a sync formats them once per rule, not once per bucket. */
    static byte[][] ruleArgs(AdmissionRule rule) {
        return new byte[][] {number(rule.ratePerSecond()), number(rule.burst())};
    }

    /**
     * Puts the arguments of the {@code bucket}-th bucket of a call (rate, burst, cost, mode) into {@code args}.
     *
     * @param ruleArgs the rule's {@link #ruleArgs}
     */
    static void putArgs(byte[][] args, int bucket, byte[][] ruleArgs, double cost, Mode mode) {
        args[4 * bucket] = ruleArgs[0];
        args[4 * bucket + 1] = ruleArgs[1];
        args[4 * bucket + 2] = number(cost);
        args[4 * bucket + 3] = mode.arg();
    }

    /** Parses the script's reply for one bucket: {@code [allowed, "tokens", waitMicros]}. */
    static Result parse(List<Object> reply) {
        if (reply == null || reply.size() != 3) {
            throw new IllegalStateException("unexpected token-bucket reply " + reply);
        }
        return parseAt(reply, 0);
    }

    /**
     * Parses the reply of a call for several buckets: three values per bucket, in the order of the KEYS.
     * A bucket whose key holds another type of value is null.
     */
    static List<Result> parseAll(List<Object> reply, int buckets) {
        if (reply == null || reply.size() != 3 * buckets) {
            throw new IllegalStateException("unexpected token-bucket reply for " + buckets + " buckets: " + reply);
        }
        List<Result> results = new java.util.ArrayList<>(buckets);
        for (int i = 0; i < buckets; i++) {
            results.add(((Number) reply.get(3 * i)).longValue() < 0 ? null : parseAt(reply, 3 * i));
        }
        return results;
    }

    private static Result parseAt(List<Object> reply, int at) {
        boolean allowed = ((Number) reply.get(at)).longValue() == 1;
        Object tokens = reply.get(at + 1);
        String text = tokens instanceof byte[] b ? new String(b, StandardCharsets.US_ASCII) : String.valueOf(tokens);
        return new Result(allowed, Double.parseDouble(text), ((Number) reply.get(at + 2)).longValue());
    }

    private static byte[] number(double value) {
        String text = value == Math.rint(value) && Math.abs(value) < 1e15 ? Long.toString((long) value)
                : Double.toString(value);
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
