package dev.shaper.internals.metrics;

/**
 * What one stream task counts on its hot paths: records passed at once, queued and released, the records and
 * bytes its queues hold, and the records it sent to the output per wall-clock second. Only the task's stream
 * thread writes, so a count is a plain add to a field of its own, where meters shared by every stream thread would
 * take an atomic update per record on cache lines all threads write (the profiles behind this are in the benchmark
 * notes). The instance's meters sum the tasks' counts when they are read
 * ({@link ShaperMetrics}). The output per second reaches the release-rate gauge in one add per task and second
 * or tick: at the task's first record of a new second, and at every release tick (so an idle task's last second
 * is counted at most a tick late).
 */
public final class TaskCounts {

    /** Where a task's counts go beyond its own fields: the instance's meters. */
    interface Owner {
        /** One released record waited {@code waitedMs}. */
        void recordQueueDelay(long waitedMs);

        /** {@code records} went to the output in the wall-clock second that starts at {@code secondStartMs}. */
        void addOutput(long secondStartMs, long records);

        /** The task closed: its counts stay in the totals. */
        void retire(TaskCounts counts);
    }

    private final Owner owner;
    // Volatile: the stream thread writes, a scrape reads. Single writer, so the read-modify-write is safe.
    private volatile long passed;
    private volatile long queued;
    private volatile long released;
    /** What the task's queues hold now: the queue gauges count live tasks only. */
    private volatile long queuedRecords;
    private volatile long queuedBytes;
    /** The task's release tick and how late its ticks routinely come, in milliseconds, as of its last tick. */
    private volatile long releaseTickMs;
    private volatile long routineLateMs;
    /** How much later its ticks came than the release makes up at once, summed: the time its stream thread stalled. */
    private volatile long stalledNanos;
    /** The wall-clock second whose output {@link #outputInSecond} counts: [start, end) in milliseconds. */
    private long secondStartMs = Long.MAX_VALUE;
    private long secondEndMs = Long.MIN_VALUE;
    private long outputInSecond;

    /** @param records records the task's queues hold at its start (restored), and {@code bytes} their size */
    TaskCounts(Owner owner, long records, long bytes) {
        this.owner = owner;
        this.queuedRecords = records;
        this.queuedBytes = bytes;
    }

    /** A record left at once, at wall time {@code wallMs}. */
    public void passed(long wallMs) {
        passed++;
        output(wallMs);
    }

    /** A record of {@code storedBytes} joined its key's queue. */
    public void queued(long storedBytes) {
        queued++;
        queuedRecords++;
        queuedBytes += storedBytes;
    }

    /** A queued record of {@code storedBytes} left at wall time {@code wallMs} after waiting {@code waitedMs}. */
    public void released(long wallMs, long waitedMs, long storedBytes) {
        released++;
        queuedRecords--;
        queuedBytes -= storedBytes;
        owner.recordQueueDelay(waitedMs);
        output(wallMs);
    }

    /** A queued record of {@code storedBytes} left its queue for the rejected topic, not the output. */
    public void dequeuedToRejected(long storedBytes) {
        queuedRecords--;
        queuedBytes -= storedBytes;
    }

    /** A release tick: hands the output counted so far to the release rate, also when no record follows. */
    public void tick(long wallMs) {
        publishOutput();
        toSecondOf(wallMs);
    }

    /** The release's pace as of this tick: its tick and the lateness its ticks routinely show. */
    public void pace(long tickMs, long routineLateMs) {
        this.releaseTickMs = tickMs;
        this.routineLateMs = routineLateMs;
    }

    /** A release tick came {@code nanos} later than the release makes up at once (a stall of its stream thread). */
    public void stalled(long nanos) {
        stalledNanos += nanos;
    }

    long releaseTickMs() {
        return releaseTickMs;
    }

    long routineLateMs() {
        return routineLateMs;
    }

    /**
     * The task closed (a rebalance moved it, or the instance stops): its counts stay in the instance's totals, its
     * queues leave the gauges with it.
     */
    public void close() {
        publishOutput();
        owner.retire(this);
    }

    /** Adds what {@code other} counted, not its queues (the totals of closed tasks, under the owner's lock). */
    void absorb(TaskCounts other) {
        passed += other.passed;
        queued += other.queued;
        released += other.released;
        stalledNanos += other.stalledNanos;
    }

    long passedCount() {
        return passed;
    }

    long queuedCount() {
        return queued;
    }

    long releasedCount() {
        return released;
    }

    long stalledNanos() {
        return stalledNanos;
    }

    long queuedRecords() {
        return queuedRecords;
    }

    long queuedBytes() {
        return queuedBytes;
    }

    private void output(long wallMs) {
        toSecondOf(wallMs);
        outputInSecond++;
    }

    /** Makes the second of {@code wallMs} the one {@link #outputInSecond} counts, handing over another's count. */
    private void toSecondOf(long wallMs) {
        if (wallMs >= secondEndMs || wallMs < secondStartMs) {
            publishOutput();
            secondStartMs = Math.floorDiv(wallMs, 1000) * 1000;
            secondEndMs = secondStartMs + 1000;
        }
    }

    private void publishOutput() {
        if (outputInSecond > 0) {
            owner.addOutput(secondStartMs, outputInSecond);
            outputInSecond = 0;
        }
    }
}
