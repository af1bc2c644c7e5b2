package dev.shaper.testsupport;

/**
 * How one key's records came out of the shaper. The rate figures are on the time basis named by
 * {@code timeBasis}: the release time ({@code shaper.released.ms}) when records carry it, which is what the
 * shaper controls. Transport adds jitter afterwards (producer, broker, and under exactly-once a transaction at
 * a time), so the same window count is also given on the broker's append time and on the times the
 * consumer's polls returned the records.
 *
 * @param key               the record key
 * @param count             records of this key read from the output topic (duplicates included)
 * @param fittedRate        arrival rate in records per second, see {@link ArrivalStats#fittedRatePerSecond}
 * @param maxInWindow       the most of this key's records in any sliding window of the report's length
 * @param spanMs            milliseconds from the key's first arrival to its last
 * @param maxQueuedMs       the largest {@code shaper.queued.ms} header among them, or -1 if none had one
 * @param timeBasis         what the times are: release time, the broker's append time, or the consumer's poll time
 * @param maxInWindowAppended   the most in any sliding window of broker append times, or -1 if not recorded
 * @param maxInWindowAtConsumer the most in any sliding window of the consumer's poll times
 */
public record KeyArrivals(String key, int count, double fittedRate, int maxInWindow, long spanMs,
                          long maxQueuedMs, String timeBasis, int maxInWindowAppended, int maxInWindowAtConsumer) {

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT,
                "%s: %d records over %d ms, fitted rate %.2f/s, max %d in a sliding window (%s; %d by broker"
                        + " append time, %d as the consumer polled them), max queued %d ms",
                key, count, spanMs, fittedRate, maxInWindow, timeBasis, maxInWindowAppended, maxInWindowAtConsumer,
                maxQueuedMs);
    }
}
