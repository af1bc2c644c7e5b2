package dev.shaper.testsupport;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Checks what the shaper wrote against what it was given: every input id exactly once across the output and
 * rejected topics, each key's output in sequence order, and how fast each key's output arrived (fitted rate,
 * densest sliding window). Pure: it reads {@link CollectedRecord}s, whoever collected them.
 */
public final class ShapedOutputVerifier {

    /** The window the rate bound is stated for: no key may have more than rate + 1 records in any second. */
    public static final Duration ONE_SECOND = Duration.ofSeconds(1);

    private ShapedOutputVerifier() {
    }

    /** {@link #verify(Collection, List, Duration)} with a one-second window. */
    public static VerificationReport verify(Collection<RecordId> expected, List<CollectedRecord> records) {
        return verify(expected, records, ONE_SECOND);
    }

    /**
     * @param expected the ids of every record produced to the input topic
     * @param records  everything read from the output and rejected topics, in the order read
     * @param window   the length of the sliding window for {@link KeyArrivals#maxInWindow()}
     */
    public static VerificationReport verify(Collection<RecordId> expected, List<CollectedRecord> records,
                                            Duration window) {
        Set<RecordId> wanted = Set.copyOf(expected);
        Map<RecordId, Integer> seen = new HashMap<>();
        List<String> unexpected = new ArrayList<>();
        TreeMap<String, Integer> rejectedByReason = new TreeMap<>();
        List<String> orderViolations = new ArrayList<>();
        Map<String, List<CollectedRecord>> outputByKey = new LinkedHashMap<>();
        Map<String, Long> lastSeq = new HashMap<>();

        for (CollectedRecord r : records) {
            if (r.id() == null) {
                unexpected.add(r.topic() + " record with key " + r.key() + ": " + r.malformed());
                continue;
            }
            if (!r.id().key().equals(r.key())) {
                unexpected.add(r.topic() + " record " + r.id() + " under key " + r.key());
                continue;
            }
            if (!wanted.contains(r.id())) {
                unexpected.add(r.topic() + " record " + r.id() + " was never produced");
                continue;
            }
            seen.merge(r.id(), 1, Integer::sum);
            if (r.isOutput()) {
                outputByKey.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r);
                Long previous = lastSeq.put(r.key(), r.id().seq());
                if (previous != null && r.id().seq() <= previous) {
                    orderViolations.add(r.key() + ": seq " + r.id().seq() + " after seq " + previous);
                }
            } else {
                rejectedByReason.merge(String.valueOf(r.reason()), 1, Integer::sum);
            }
        }

        TreeSet<RecordId> missing = new TreeSet<>();
        for (RecordId id : wanted) {
            if (!seen.containsKey(id)) {
                missing.add(id);
            }
        }
        TreeMap<RecordId, Integer> duplicates = new TreeMap<>();
        seen.forEach((id, count) -> {
            if (count > 1) {
                duplicates.put(id, count);
            }
        });
        TreeMap<String, KeyArrivals> keys = new TreeMap<>();
        outputByKey.forEach((key, list) -> keys.put(key, arrivals(key, list, window)));
        return new VerificationReport(wanted.size(), missing, duplicates, unexpected, rejectedByReason,
                orderViolations, window, keys);
    }

    /**
     * The rate figures are taken at release (the {@code shaper.released.ms} header, which every shaped record
     * carries), where the shaper's guarantee applies; the broker's append time and the consumer's poll time
     * are reported beside them. Without release times, append time, else poll time.
     */
    private static KeyArrivals arrivals(String key, List<CollectedRecord> list, Duration window) {
        long[] polled = list.stream().mapToLong(CollectedRecord::arrivalNanos).toArray();
        long[] appended = list.stream().allMatch(r -> r.appendedAtMs() != null)
                ? list.stream().mapToLong(r -> r.appendedAtMs() * 1_000_000L).toArray() : null;
        long[] released = list.stream().allMatch(r -> r.releasedAtMs() != null)
                ? list.stream().mapToLong(r -> r.releasedAtMs() * 1_000_000L).toArray() : null;
        long[] times = released != null ? released : appended != null ? appended : polled;
        String basis = released != null ? "release time" : appended != null ? "broker append time"
                : "consumer poll time";
        long maxQueued = list.stream().mapToLong(r -> r.queuedMs() == null ? -1 : r.queuedMs()).max().orElse(-1);
        long spanMs = (times[times.length - 1] - times[0]) / 1_000_000;
        return new KeyArrivals(key, times.length, ArrivalStats.fittedRatePerSecond(times),
                ArrivalStats.maxInWindow(times, window.toNanos()), spanMs, maxQueued, basis,
                appended == null ? -1 : ArrivalStats.maxInWindow(appended, window.toNanos()),
                ArrivalStats.maxInWindow(polled, window.toNanos()));
    }
}
