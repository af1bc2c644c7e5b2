package dev.shaper.internals.shaping;

/**
 * What the shaper remembers about one key, in the task's virtual time (see {@link VirtualClock}).
 *
 * @param tatNanos         theoretical arrival time: the earliest virtual time the key's next record may be due
 * @param queuedRecords    records of this key waiting in the schedule store
 * @param queuedUnits      their total cost
 * @param queuedBytes      their total stored size
 * @param releaseTatNanos  the release side's theoretical time: when the key's next release is on schedule (see
 *                         {@link LeakyBucket#release})
 */
public record KeyState(long tatNanos, int queuedRecords, long queuedUnits, long queuedBytes, long releaseTatNanos) {

    /** The state of a key the shaper has never seen, or has forgotten. */
    public static final KeyState ABSENT = new KeyState(Long.MIN_VALUE, 0, 0, 0, Long.MIN_VALUE);

    /** A state whose release side imposes nothing beyond the dues. */
    public KeyState(long tatNanos, int queuedRecords, long queuedUnits, long queuedBytes) {
        this(tatNanos, queuedRecords, queuedUnits, queuedBytes, Long.MIN_VALUE);
    }

    /**
     * True when this state can be forgotten without changing any future decision: nothing is queued
     * and the key's next record could leave at once anyway.
     */
    public boolean isIdleAt(long nowNanos) {
        return queuedRecords == 0 && tatNanos <= nowNanos && releaseTatNanos <= nowNanos;
    }

    KeyState withEnqueued(long newTat, long cost) {
        return new KeyState(newTat, queuedRecords + 1, queuedUnits + cost, queuedBytes, releaseTatNanos);
    }

    /** The state after one queued record of this key left the schedule store. */
    KeyState withReleased(long cost) {
        return new KeyState(tatNanos, Math.max(0, queuedRecords - 1), Math.max(0, queuedUnits - cost), queuedBytes,
                releaseTatNanos);
    }

    /** The state with {@code delta} more (or, negative, fewer) bytes queued. */
    public KeyState plusQueuedBytes(long delta) {
        return new KeyState(tatNanos, queuedRecords, queuedUnits, Math.max(0, queuedBytes + delta), releaseTatNanos);
    }

    KeyState withReleaseTat(long nanos) {
        return new KeyState(tatNanos, queuedRecords, queuedUnits, queuedBytes, nanos);
    }
}
