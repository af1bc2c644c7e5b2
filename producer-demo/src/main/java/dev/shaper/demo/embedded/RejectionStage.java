package dev.shaper.demo.embedded;

import dev.shaper.RejectReason;
import dev.shaper.ShaperHeaders;
import java.util.List;
import java.util.Set;

/**
 * Where a rejected record was refused: when it arrived, or after it had waited in its key's queue. A
 * {@code DELAY_EXCEEDED} can be either: a record that would wait past {@code max.delay.ms} is refused at arrival,
 * and a queued one is rejected later when it waited past its bound anyway (a stall of the release) or when a fall of
 * the capacity left it no time to leave in. Both carry the same reason and a retry-after; what tells them apart is
 * the {@link ShaperHeaders#DETAIL} text, whose openings docs/how-it-works.md and docs/capacity.md quote: "expired
 * while queued", "taken out of its queue when the capacity ... shrank". The shaper writes no other marker, and the
 * demo does not need one: it only counts the two, it does not act on them.
 */
enum RejectionStage {
    /** Refused when it arrived: it never waited in a queue. */
    AT_ARRIVAL,
    /** Taken out of its key's queue after it had waited there: expired, or cut at a fall of the capacity. */
    WHILE_QUEUED;

    /**
     * How the shaper's details of a queued record's rejection begin: expired past {@code max.delay.ms}, cut at a fall
     * of the capacity (as {@code DELAY_EXCEEDED} or {@code DEADLINE_EXCEEDED}), past its deadline, and a timestamp
     * or a size the output no longer takes on release.
     */
    private static final List<String> WHILE_QUEUED_OPENINGS = List.of("expired while queued",
            "taken out of its queue", "still queued at its deadline", "the record waited ");

    /** The reasons the shaper gives a record it takes out of a queue; every other reason is given at arrival. */
    private static final Set<String> WHILE_QUEUED_REASONS = Set.of(RejectReason.DELAY_EXCEEDED.name(),
            RejectReason.DEADLINE_EXCEEDED.name(), RejectReason.INVALID_TIMESTAMP.name(),
            RejectReason.RECORD_TOO_LARGE.name());

    /** Whether a record may be rejected for {@code reason} at both stages, so that the two are worth telling apart. */
    static boolean bothPossible(String reason) {
        return WHILE_QUEUED_REASONS.contains(reason);
    }

    /**
     * The stage a rejected record's detail names; a record without a detail, or with one of any other wording, was
     * refused at arrival (every other rejection happens there).
     */
    static RejectionStage ofDetail(String detail) {
        if (detail != null) {
            for (String opening : WHILE_QUEUED_OPENINGS) {
                if (detail.startsWith(opening)) {
                    return WHILE_QUEUED;
                }
            }
        }
        return AT_ARRIVAL;
    }
}
