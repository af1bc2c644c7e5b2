package dev.shaper.testsupport;

import java.time.Duration;
import java.util.List;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.stream.Collectors;

/**
 * What {@link ShapedOutputVerifier} found. Empty collections mean "none found".
 *
 * @param expected        how many input ids the run was checked against
 * @param missing         input ids read from neither topic
 * @param duplicates      input ids read more than once across both topics, with how often
 * @param unexpected      records that do not belong to the input: no parsable id, an id that was not
 *                        produced, or a record key that differs from the id's key
 * @param rejectedByReason rejected records per {@code shaper.reason}
 * @param orderViolations output records of a key whose sequence number is not above the one before it
 * @param window          the length of the sliding window of {@link KeyArrivals#maxInWindow()}
 * @param keys            per key, how its output records arrived
 */
public record VerificationReport(int expected, SortedSet<RecordId> missing, SortedMap<RecordId, Integer> duplicates,
                                 List<String> unexpected, SortedMap<String, Integer> rejectedByReason,
                                 List<String> orderViolations, Duration window,
                                 SortedMap<String, KeyArrivals> keys) {

    /** Every input id read exactly once, nothing else read. */
    public boolean isExactlyOnce() {
        return missing.isEmpty() && duplicates.isEmpty() && unexpected.isEmpty();
    }

    public int rejectedCount() {
        return rejectedByReason.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** The largest per-key window count. */
    public int maxInWindow() {
        return keys.values().stream().mapToInt(KeyArrivals::maxInWindow).max().orElse(0);
    }

    /** A multi-line summary for logs and assertion messages; long lists are cut short. */
    public String summary() {
        StringBuilder s = new StringBuilder();
        s.append("expected ids: ").append(expected)
                .append(", missing: ").append(missing.size()).append(firstFew(missing))
                .append(", duplicated: ").append(duplicates.size()).append(firstFew(duplicates.entrySet()))
                .append(", unexpected: ").append(unexpected.size()).append(firstFew(unexpected))
                .append("\nrejected: ").append(rejectedByReason)
                .append("\norder violations: ").append(orderViolations.size()).append(firstFew(orderViolations))
                .append("\nper key (sliding window ").append(window.toMillis()).append(" ms):");
        keys.values().forEach(k -> s.append("\n  ").append(k));
        return s.toString();
    }

    private static String firstFew(java.util.Collection<?> items) {
        if (items.isEmpty()) {
            return "";
        }
        return items.stream().limit(10).map(String::valueOf)
                .collect(Collectors.joining(", ", " [", items.size() > 10 ? ", ...]" : "]"));
    }
}
