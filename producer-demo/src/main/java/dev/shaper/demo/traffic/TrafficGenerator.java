package dev.shaper.demo.traffic;

import java.util.HashMap;
import java.util.Map;

/**
 * Sends records to a {@link RecordSink} following a {@link TrafficPattern}, with keys from {@link ZipfKeys},
 * until its {@link TrafficLimit} or {@link #stop()}. Each record's value is its {@link DemoRecordId},
 * padded to the record size. Time comes from a {@link Ticker}, so the pattern can be checked without waiting.
 */
public final class TrafficGenerator {

    /** How long the loop waits when nothing is due: the pacing resolution. */
    static final long STEP_NANOS = 1_000_000;

    private final String run;
    private final TrafficPattern pattern;
    private final ZipfKeys keys;
    private final int recordSize;
    private final TrafficLimit limit;
    private final Ticker ticker;
    private final Map<String, Long> nextSeq = new HashMap<>();
    private volatile boolean stopped;

    public TrafficGenerator(String run, TrafficPattern pattern, ZipfKeys keys, int recordSize, TrafficLimit limit,
                            Ticker ticker) {
        this.run = run;
        this.pattern = pattern;
        this.keys = keys;
        this.recordSize = recordSize;
        this.limit = limit;
        this.ticker = ticker;
    }

    /** Generates on the calling thread until the limit or {@link #stop()}; returns how many records it sent. */
    public long run(RecordSink sink) {
        long start = ticker.nanoTime();
        long sent = 0;
        while (!stopped && !limit.reachedCount(sent)) {
            long elapsed = ticker.nanoTime() - start;
            if (limit.reachedTime(elapsed)) {
                break;
            }
            long due = (long) Math.floor(pattern.dueBy(elapsed / 1e9));
            if (limit.count() > 0) {
                due = Math.min(due, limit.count());
            }
            while (sent < due && !stopped) {
                String key = keys.next();
                DemoRecordId id = new DemoRecordId(run, key, nextSeq.merge(key, 1L, Long::sum) - 1);
                sink.send(id, id.toValue(recordSize));
                sent++;
            }
            if (sent >= due) {
                ticker.sleepNanos(STEP_NANOS);
            }
        }
        return sent;
    }

    /** Makes {@link #run} return soon, from any thread. */
    public void stop() {
        stopped = true;
    }
}
