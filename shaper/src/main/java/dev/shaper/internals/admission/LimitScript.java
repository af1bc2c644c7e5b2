package dev.shaper.internals.admission;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * The contract every admission script shares (each script's header states its own part), on the shaper's side:
 * the Redis key of an admission key (the algorithm's prefix, the admission key as a hash tag), four arguments per key
 * (the algorithm's two limit arguments, comma-separated for several limits; the cost; the {@link Mode}), and a reply
 * per key of allowed, left and wait, then the algorithm's own values ({@link AdmissionAlgorithm#detailValues}), read
 * as a {@link SharedState}. A call may hold several keys, their replies in turn.
 */
final class LimitScript {

    /** What a call does with the cost. */
    enum Mode {
        /** Take the cost from every limit only if each allows it (the strict mode). */
        TAKE,
        /** Count the cost whatever is left (consumption admitted elsewhere, reported by the batched mode). */
        CHARGE,
        /** Lower what is left to at most the cost, per limit; never raise it (the hand-back after an outage). */
        CAP;

        private final byte[] arg = name().toLowerCase(Locale.ROOT).getBytes(StandardCharsets.US_ASCII);

        /** The script's argument for this mode; shared, not to be changed. */
        byte[] arg() {
            return arg;
        }
    }

    private LimitScript() {
    }

    /**
     * Before an admission key that would leave the hash tag empty (an empty key, or one that starts with
     * <code>}</code>), and before one that starts with this byte itself, so that no two keys share a name.
     */
    static final byte TAG_ESCAPE = '~';

    /**
     * The Redis key of {@code admissionKey} under {@code algorithm}: its prefix, then the key as a hash tag, so that
     * the key's every Redis key (the scripts derive one per limit or window from this name) is in one Redis Cluster
     * slot. Redis hashes the whole name when the tag is empty, which would scatter the derived keys: such a key gets
     * {@link #TAG_ESCAPE} before it (<code>shaper:win:{~}x}</code>), as does a key starting with that byte.
     */
    static byte[] keyName(AdmissionAlgorithm algorithm, byte[] admissionKey) {
        byte[] prefix = (algorithm.keyPrefix() + "{").getBytes(StandardCharsets.UTF_8);
        boolean escaped = admissionKey.length == 0 || admissionKey[0] == '}' || admissionKey[0] == TAG_ESCAPE;
        int at = prefix.length + (escaped ? 1 : 0);
        byte[] name = new byte[at + admissionKey.length + 1];
        System.arraycopy(prefix, 0, name, 0, prefix.length);
        if (escaped) {
            name[prefix.length] = TAG_ESCAPE;
        }
        System.arraycopy(admissionKey, 0, name, at, admissionKey.length);
        name[name.length - 1] = '}';
        return name;
    }

    /** The two limit arguments of {@code policy} (see {@link AdmissionPolicy#scriptArgs}). */
    static byte[][] limitArgs(AdmissionPolicy policy) {
        StringBuilder first = new StringBuilder();
        StringBuilder second = new StringBuilder();
        for (int i = 0; i < policy.size(); i++) {
            String[] args = policy.algorithm().limitArgs(policy.limit(i));
            String separator = i == 0 ? "" : ",";
            first.append(separator).append(args[0]);
            second.append(separator).append(args[1]);
        }
        return new byte[][] {ascii(first.toString()), ascii(second.toString())};
    }

    /**
     * The four arguments of the {@code key}-th key of a call for {@code policy}: its limits, {@code amounts} (one,
     * or one per limit), the mode.
     */
    static void putArgs(byte[][] args, int key, AdmissionPolicy policy, double[] amounts, Mode mode) {
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

    /** Reply values per key. */
    static int stride(AdmissionAlgorithm algorithm) {
        return 3 + algorithm.detailValues();
    }

    /** Reads the reply of a call for one key of {@code limits} limits. */
    static SharedState parse(AdmissionAlgorithm algorithm, List<Object> reply, int limits) {
        if (reply == null || reply.size() != stride(algorithm)) {
            throw new IllegalStateException("unexpected " + algorithm + " reply " + reply);
        }
        return parseAt(algorithm, reply, 0, limits);
    }

    /**
     * Reads the reply of a call for several keys, {@code limits.get(k)} limits for the k-th: a key whose Redis state
     * holds another type of value is null.
     */
    static List<SharedState> parseAll(AdmissionAlgorithm algorithm, List<Object> reply, List<Integer> limits) {
        int stride = stride(algorithm);
        if (reply == null || reply.size() != stride * limits.size()) {
            throw new IllegalStateException("unexpected " + algorithm + " reply for " + limits.size() + " keys: "
                    + reply);
        }
        List<SharedState> states = new ArrayList<>(limits.size());
        for (int k = 0; k < limits.size(); k++) {
            int at = stride * k;
            states.add(((Number) reply.get(at)).longValue() < 0 ? null
                    : parseAt(algorithm, reply, at, limits.get(k)));
        }
        return states;
    }

    private static SharedState parseAt(AdmissionAlgorithm algorithm, List<Object> reply, int at, int limits) {
        boolean allowed = ((Number) reply.get(at)).longValue() == 1;
        double[] left = numbers(reply.get(at + 1), limits);
        double[] waits = numbers(reply.get(at + 2), limits);
        long[] waitMicros = new long[limits];
        for (int i = 0; i < limits; i++) {
            waitMicros[i] = (long) waits[i];
        }
        int values = algorithm.detailValues();
        double[][] detail = new double[limits][values];
        for (int v = 0; v < values; v++) {
            double[] column = numbers(reply.get(at + 3 + v), limits);
            for (int i = 0; i < limits; i++) {
                detail[i][v] = column[i];
            }
        }
        return new SharedState(algorithm, allowed, left, waitMicros, detail);
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

    private static byte[] ascii(String text) {
        return text.getBytes(StandardCharsets.US_ASCII);
    }
}
