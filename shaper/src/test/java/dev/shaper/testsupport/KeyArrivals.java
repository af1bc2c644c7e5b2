package dev.shaper.testsupport;

/**
 * How one key's records arrived in the output topic.
 *
 * @param key               the record key
 * @param count             records of this key read from the output topic (duplicates included)
 * @param fittedRate        arrival rate in records per second, see {@link ArrivalStats#fittedRatePerSecond}
 * @param maxInWindow       the most of this key's records in any sliding window of the report's length
 * @param spanMs            milliseconds from the key's first arrival to its last
 * @param maxQueuedMs       the largest {@code shaper.queued.ms} header among them, or -1 if none had one
 */
public record KeyArrivals(String key, int count, double fittedRate, int maxInWindow, long spanMs,
                          long maxQueuedMs) {

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT,
                "%s: %d records over %d ms, fitted rate %.2f/s, max %d in a sliding window, max queued %d ms",
                key, count, spanMs, fittedRate, maxInWindow, maxQueuedMs);
    }
}
