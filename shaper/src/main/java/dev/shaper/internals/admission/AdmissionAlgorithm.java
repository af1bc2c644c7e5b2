package dev.shaper.internals.admission;

import java.util.Locale;

/**
 * How an admission limit counts what it admitted ({@code admission.algorithm} in a rule, {@code
 * shaper.admission.algorithm} by default). Each has its Redis script and its in-process implementation; see
 * docs/admission.md, "Algorithms side by side", for their accuracy, memory and cost.
 */
public enum AdmissionAlgorithm {
    /** A bucket of {@code burst} tokens refilled at {@code rate} per {@code per}: smooth, bursts up to the burst. */
    TOKEN_BUCKET("token-bucket"),
    /**
     * A counter per aligned window of length {@code per} (aligned to the epoch on Redis's clock): at most {@code
     * rate} per window, and up to twice that across a window boundary.
     */
    FIXED_WINDOW("fixed-window"),
    /**
     * The fixed window's counters, with the previous window weighted by how much of it the sliding window still
     * covers: no burst at a boundary; exact for evenly spread traffic, at most twice the limit in any window-long
     * interval in the worst case.
     */
    SLIDING_WINDOW("sliding-window");

    /** Prefix of the window algorithms' Redis counters; the admission key follows in a {hash tag}. */
    public static final String WINDOW_KEY_PREFIX = "shaper:win:";

    private final String configName;

    AdmissionAlgorithm(String configName) {
        this.configName = configName;
    }

    /** The name in rules files and settings: {@code token-bucket}, {@code fixed-window}, {@code sliding-window}. */
    public String configName() {
        return configName;
    }

    /** True for the two window algorithms, whose limits have no burst. */
    public boolean isWindow() {
        return this != TOKEN_BUCKET;
    }

    /** The algorithm named {@code name} (case-insensitive), or null for none. */
    public static AdmissionAlgorithm of(String name) {
        String lower = name == null ? "" : name.trim().toLowerCase(Locale.ROOT);
        for (AdmissionAlgorithm algorithm : values()) {
            if (algorithm.configName.equals(lower)) {
                return algorithm;
            }
        }
        return null;
    }

    /** The valid names, for messages: "token-bucket, fixed-window or sliding-window". */
    public static String names() {
        return "token-bucket, fixed-window or sliding-window";
    }

    @Override
    public String toString() {
        return configName;
    }
}
