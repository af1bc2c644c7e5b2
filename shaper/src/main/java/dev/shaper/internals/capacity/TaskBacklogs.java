package dev.shaper.internals.capacity;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * How long each task's queued units need at the task's part of the total rate, as its processor last published it
 * (once per tick), for the operators' per-key view ({@code /buckets/{key}}): a key's records wait behind the whole
 * task's backlog when the total rate binds, not only behind the key's own schedule. Thread-safe: stream threads
 * publish, HTTP threads read.
 */
public final class TaskBacklogs {

    private final Map<Integer, Long> backlogNanos = new ConcurrentHashMap<>();

    /** The task of {@code partition} needs {@code nanos} to release what it has queued; 0 or less: nothing waits. */
    public void publish(int partition, long nanos) {
        backlogNanos.put(partition, Math.max(0, nanos));
    }

    /** The task of {@code partition} closed here. */
    public void remove(int partition) {
        backlogNanos.remove(partition);
    }

    /** The last backlog published for {@code partition}, in nanoseconds, or null if its task does not run here. */
    public Long backlogNanos(int partition) {
        return backlogNanos.get(partition);
    }
}
