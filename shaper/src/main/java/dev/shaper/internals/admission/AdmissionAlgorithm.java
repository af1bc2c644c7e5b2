package dev.shaper.internals.admission;

import dev.shaper.internals.redis.RedisScript;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;

/**
 * How an admission limit counts what it admitted ({@code admission.algorithm} in a rule, {@code
 * shaper.admission.algorithm} by default). An algorithm owns everything that differs between algorithms: which limits
 * it accepts, its in-process state per limit ({@link LimitState}, for the local fallback and the batched mirrors),
 * its Redis script and the Redis key it runs on, and how its script's arguments and reply read ({@link LimitScript}
 * holds the contract all of them share). The backends know only this interface, so a new algorithm is a class here,
 * a script and a line in {@link #all()}. See docs/admission.md, "Algorithms side by side".
 */
public interface AdmissionAlgorithm {

    /** A bucket of {@code burst} tokens refilled at {@code rate} per {@code per}: smooth, bursts up to the burst. */
    AdmissionAlgorithm TOKEN_BUCKET = new TokenBucketAlgorithm();
    /**
     * A counter per aligned window of length {@code per} (aligned to the epoch on Redis's clock): at most {@code
     * rate} per window, and up to twice that across a window boundary.
     */
    AdmissionAlgorithm FIXED_WINDOW = new FixedWindowAlgorithm();
    /**
     * The fixed window's counters, with the previous window weighted by how much of it the sliding window still
     * covers: no burst at a boundary; exact for evenly spread traffic, at most twice the limit in any window-long
     * interval in the worst case.
     */
    AdmissionAlgorithm SLIDING_WINDOW = new SlidingWindowAlgorithm();
    /**
     * GCRA, the leaky bucket as a meter: one theoretical arrival time per limit, admitting what a token bucket of
     * the same rate and burst admits.
     */
    AdmissionAlgorithm GCRA = new GcraAlgorithm();

    /** Every algorithm, in the order messages and the configuration list them. */
    static List<AdmissionAlgorithm> all() {
        return List.of(TOKEN_BUCKET, FIXED_WINDOW, SLIDING_WINDOW, GCRA);
    }

    /** The algorithm named {@code name} (case-insensitive), or null for none. */
    static AdmissionAlgorithm of(String name) {
        String lower = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (AdmissionAlgorithm algorithm : all()) {
            if (algorithm.configName().equals(lower)) {
                return algorithm;
            }
        }
        return null;
    }

    /** The valid names, for messages: "token-bucket, fixed-window, sliding-window or gcra". */
    static String names() {
        List<String> names = all().stream().map(AdmissionAlgorithm::configName).toList();
        return names.subList(0, names.size() - 1).stream().collect(Collectors.joining(", "))
                + " or " + names.get(names.size() - 1);
    }

    /** The name in rules files and settings, e.g. {@code token-bucket}. */
    String configName();

    /**
     * Whether a limit has a burst of its own (by default it has). An algorithm without one counts whole units per
     * window: its limits' burst is their amount, the amount is at least 1, and a rule names each window length once.
     */
    default boolean hasBurst() {
        return true;
    }

    /**
     * Checks the limits of one policy beyond what each limit checks itself.
     *
     * @throws IllegalArgumentException for limits this algorithm cannot count together
     */
    default void check(List<AdmissionLimit> limits) {
    }

    /**
     * {@code limit} divided among {@code instances} (the local fallback's share), its capacity at least {@code
     * minCapacity} and one unit: by default the rate and the burst divided.
     */
    default AdmissionLimit share(AdmissionLimit limit, int instances, double minCapacity) {
        int n = Math.max(1, instances);
        return new AdmissionLimit(limit.amount() / n, limit.periodMillis(),
                Math.max(Math.max(1, minCapacity), limit.burst() / n));
    }

    /** A fresh state for {@code limit}: nothing admitted yet. */
    LimitState newState(AdmissionLimit limit, long nowNanos);

    /**
     * The state for {@code limit} given the one the same place of the key's policy held before ({@code current},
     * null for none, possibly of another algorithm): {@code current} if it can go on, else a fresh one. A rule
     * changed live keeps what it can, rather than granting a fresh burst.
     */
    LimitState fit(LimitState current, AdmissionLimit limit, long nowNanos);

    /** The Redis script that decides for this algorithm; its header states the contract. */
    RedisScript script();

    /** Prefix of the Redis key of an admission key; the admission key follows in a {hash tag}. */
    String keyPrefix();

    /** The script's two limit arguments for {@code limit}, as numbers: by default the rate per second and the burst. */
    default String[] limitArgs(AdmissionLimit limit) {
        return new String[] {AdmissionLimit.number(limit.ratePerSecond()), AdmissionLimit.number(limit.burst())};
    }

    /**
     * How many values per limit the script replies beyond allowed, left and wait (see {@link LimitState#detail}); by
     * default none.
     */
    default int detailValues() {
        return 0;
    }
}
