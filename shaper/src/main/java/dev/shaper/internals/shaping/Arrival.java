package dev.shaper.internals.shaping;

import dev.shaper.RejectReason;

/** What the leaky bucket decided for one arriving record. */
public sealed interface Arrival {

    /** The record may leave at once; {@code state} is the key's new state. */
    record Pass(KeyState state) implements Arrival {}

    /** The record waits in the schedule store until virtual time {@code dueNanos}. */
    record Enqueue(long dueNanos, KeyState state) implements Arrival {}

    /** The record is refused; a retry after {@code retryAfterMs} would find room. */
    record Reject(RejectReason reason, long retryAfterMs, String detail) implements Arrival {}
}
