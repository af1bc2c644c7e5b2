package dev.shaper.internals.store;

/** Records queued in one task, their units (costs) and the bytes they take in its schedule store. */
public record QueuedTotals(long records, long units, long bytes) {
}
