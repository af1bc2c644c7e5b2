package dev.shaper.internals.config;

import dev.shaper.ShaperConfig;
import java.util.List;
import java.util.Locale;

/**
 * The lines a start logs about what the shaper will do, beside its effective settings: where records come from and
 * go (with the input's partitions, which its state is laid out by), how the capacity is held, and how admission
 * counts. What an operator checks first, in words rather than keys.
 */
public final class StartSummary {

    private StartSummary() {
    }

    /**
     * @param inputPartitions the input topic's partitions
     * @param admission       whether any rule sets an admission limit
     */
    public static List<String> lines(ShaperConfig config, int inputPartitions, boolean admission) {
        return List.of(topics(config, inputPartitions), capacity(config, inputPartitions), admission(config,
                admission));
    }

    static String topics(ShaperConfig config, int inputPartitions) {
        return "Topics: " + config.inputTopic() + " (" + inputPartitions + " partition" + (inputPartitions == 1 ? ""
                : "s") + ") -> " + config.outputTopic() + "; rejected: " + config.rejectedTopic()
                + (config.shadowTopic() == null ? "" : "; shadow reports: " + config.shadowTopic());
    }

    static String capacity(ShaperConfig config, int inputPartitions) {
        double total = config.totalRate();
        if (!(total > 0)) {
            return "Capacity: none (" + ShaperConfig.SHAPING_TOTAL_RATE_CONFIG + " is 0): only the keys' rates apply";
        }
        String held;
        if (!config.totalRatePooled()) {
            held = "each partition " + rate(total / inputPartitions) + " (scope partition)";
        } else if (config.redisUri() != null) {
            held = "shared by demand across the instances through Redis (scope cluster)";
        } else {
            held = "each instance holds its partitions' static shares, " + rate(total / inputPartitions)
                    + " each, pooled by demand (scope cluster, no Redis)";
        }
        String loop = config.capacityAdaptive()
                ? "; it follows the writers' feedback on " + config.feedbackTopic() + ", between "
                        + rate(config.capacityMinRate()) + " and " + rate(total)
                : "";
        return "Capacity: " + rate(total) + " for the whole application, " + held + loop;
    }

    static String admission(ShaperConfig config, boolean admission) {
        if (!admission) {
            return "Admission: none (no rule sets an admission limit)";
        }
        String mode = config.admissionMode().name().toLowerCase(Locale.ROOT);
        return config.redisUri() != null
                ? "Admission: " + mode + ", the limits' counters shared in Redis; local buckets while Redis is down"
                : "Admission: local buckets in each instance (no " + ShaperConfig.REDIS_URI_CONFIG + ")";
    }

    private static String rate(double perSecond) {
        return String.format(Locale.ROOT, "%.1f/s", perSecond);
    }
}
