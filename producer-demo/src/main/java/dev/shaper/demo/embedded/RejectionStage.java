package dev.shaper.demo.embedded;

import dev.shaper.RejectReason;
import dev.shaper.ShaperHeaders;
import java.util.Set;

/**
 * Where a rejected record was refused: when it arrived, or after it had waited in its key's queue. A
 * {@code DELAY_EXCEEDED} can be either: a record that would wait past {@code max.delay.ms} is refused at arrival,
 * and a queued one is rejected later when it waited past its bound anyway (a stall of the release) or when a fall of
 * the capacity left it no time to leave in. The shaper marks the second kind: a record taken out of its queue
 * carries {@link ShaperHeaders#QUEUED_MS}, how long it waited, and one refused at arrival carries none.
 */
enum RejectionStage {
    /** Refused when it arrived: it never waited in a queue. */
    AT_ARRIVAL,
    /** Taken out of its key's queue after it had waited there: expired, or cut at a fall of the capacity. */
    WHILE_QUEUED;

    /** The reasons the shaper gives a record it takes out of a queue; every other reason is given at arrival. */
    private static final Set<String> WHILE_QUEUED_REASONS = Set.of(RejectReason.DELAY_EXCEEDED.name(),
            RejectReason.DEADLINE_EXCEEDED.name(), RejectReason.INVALID_TIMESTAMP.name(),
            RejectReason.RECORD_TOO_LARGE.name());

    /** Whether a record may be rejected for {@code reason} at both stages, so that the two are worth telling apart. */
    static boolean bothPossible(String reason) {
        return WHILE_QUEUED_REASONS.contains(reason);
    }

    /** The stage of a rejected record whose {@link ShaperHeaders#QUEUED_MS} is {@code queuedMs} (null: none). */
    static RejectionStage ofQueuedMs(String queuedMs) {
        return queuedMs == null ? AT_ARRIVAL : WHILE_QUEUED;
    }
}
