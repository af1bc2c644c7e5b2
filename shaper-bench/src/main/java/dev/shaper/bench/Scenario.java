package dev.shaper.bench;

import dev.shaper.ShaperConfig;
import java.util.Locale;
import java.util.Map;

/**
 * A load pattern: how the input's records are spread over keys, and the shaper's rule for it. Both
 * applications of a scenario read input of the same layout.
 */
public enum Scenario {

    /**
     * Keys round-robin (record {@code i} has key {@code i mod keys}) and a per-key rate of 10^9/s: every record
     * may leave at once, so the shaper forwards it from {@code process()} and nothing is ever queued.
     */
    UNQUEUED("unqueued") {
        @Override
        long keyIndex(long record, BenchmarkOptions options) {
            return record % options.keys();
        }

        @Override
        Map<String, String> shaperSettings(BenchmarkOptions options) {
            return Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "1e9");
        }
    },

    /**
     * Keys in contiguous runs (records {@code i} of one run of {@code run.length} share the key
     * {@code (i / run.length) mod keys}) and a per-key rate of {@code queued.rate}/s. A run reaches the shaper
     * far faster than that rate, so every record of a run but the first waits in the schedule store (about
     * {@code run.length / queued.rate} seconds for the last one); with many runs draining at once the total
     * release rate follows the input rate, so the drain does not limit throughput.
     */
    QUEUED("queued") {
        @Override
        long keyIndex(long record, BenchmarkOptions options) {
            return (record / options.runLength()) % options.keys();
        }

        @Override
        Map<String, String> shaperSettings(BenchmarkOptions options) {
            return Map.of(
                    ShaperConfig.SHAPING_RATE_CONFIG, Double.toString(options.queuedRate()),
                    // Room for a whole run, so no record of a run is rejected as QUEUE_FULL.
                    ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, Integer.toString(Math.max(10_000, 2 * options.runLength())),
                    ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, "600000");
        }
    };

    private final String label;

    Scenario(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /** The index (0 to keys - 1) of the key of input record number {@code record}. */
    abstract long keyIndex(long record, BenchmarkOptions options);

    /** The {@code shaper.shaping.*} settings of the shaper in this scenario. */
    abstract Map<String, String> shaperSettings(BenchmarkOptions options);

    public static Scenario byName(String name) {
        for (Scenario s : values()) {
            if (s.label.equals(name.toLowerCase(Locale.ROOT))) {
                return s;
            }
        }
        throw new IllegalArgumentException("unknown scenario \"" + name + "\"; expected unqueued or queued");
    }
}
