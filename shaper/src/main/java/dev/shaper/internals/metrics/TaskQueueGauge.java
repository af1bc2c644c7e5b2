package dev.shaper.internals.metrics;

/**
 * The records and bytes queued in one task's leaky buckets, as the instance's queue gauges see them. Only
 * the task's stream thread writes; the gauges read from the HTTP thread, hence volatile.
 */
public final class TaskQueueGauge {

    private final ShaperMetrics owner;
    private volatile long records;
    private volatile long bytes;

    TaskQueueGauge(ShaperMetrics owner) {
        this.owner = owner;
    }

    /** Adds (or, negative, removes) queued records and their bytes. */
    public void add(long recordsDelta, long bytesDelta) {
        records += recordsDelta; // single writer: the read-modify-write of a volatile is safe here
        bytes += bytesDelta;
    }

    public long records() {
        return records;
    }

    public long bytes() {
        return bytes;
    }

    /** The task closed (a rebalance moved it, or the instance stops): its queues no longer count here. */
    public void close() {
        owner.unregister(this);
    }
}
