package dev.shaper.testsupport;

/**
 * How one key's records arrived in the output topic. Arrival is the broker's append time when the topic
 * records it ({@code message.timestamp.type=LogAppendTime}): when the shaper's records reach the topic,
 * which is what the shaper controls. A {@code read_committed} consumer sees them later, a transaction at a
 * time; {@code maxInWindowAtConsumer} is the same count on the times the consumer's polls returned them.
 *
 * @param key               the record key
 * @param count             records of this key read from the output topic (duplicates included)
 * @param fittedRate        arrival rate in records per second, see {@link ArrivalStats#fittedRatePerSecond}
 * @param maxInWindow       the most of this key's records in any sliding window of the report's length
 * @param spanMs            milliseconds from the key's first arrival to its last
 * @param maxQueuedMs       the largest {@code shaper.queued.ms} header among them, or -1 if none had one
 * @param timeBasis         what the arrival times are: the broker's append time, or the consumer's poll time
 * @param maxInWindowAtConsumer the most in any sliding window of the consumer's poll times
 */
public record KeyArrivals(String key, int count, double fittedRate, int maxInWindow, long spanMs,
                          long maxQueuedMs, String timeBasis, int maxInWindowAtConsumer) {

    @Override
    public String toString() {
        return String.format(java.util.Locale.ROOT,
                "%s: %d records over %d ms, fitted rate %.2f/s, max %d in a sliding window (%s; %d as the"
                        + " consumer polled them), max queued %d ms",
                key, count, spanMs, fittedRate, maxInWindow, timeBasis, maxInWindowAtConsumer, maxQueuedMs);
    }
}
