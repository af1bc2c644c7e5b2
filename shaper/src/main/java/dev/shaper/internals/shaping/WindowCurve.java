package dev.shaper.internals.shaping;

/**
 * When the units still to come may leave under a one-second ceiling ({@link ReleaseWindow#curve}), releases going
 * as early as the ceiling allows: the n-th goes once the window, with the n - 1 before it, holds fewer than the
 * limit; the first {@code limit} as the releases already in the window leave it, each later one a second after the
 * one {@code limit} before it. After a fall of the limit the releases made at the larger one hold the next ones back
 * for a while; this says for how long, unit by unit. A snapshot: it does not follow releases made after it.
 */
public final class WindowCurve {

    /** A ceiling that holds nothing back. */
    public static final WindowCurve OPEN = new WindowCurve(0, Long.MAX_VALUE, new long[0], new long[0]);

    private final long wallMs;
    private final long limit;
    /** The window's entries, oldest first: their stamps, and the units up to and including each. */
    private final long[] stampsMs;
    private final long[] unitsUpTo;

    WindowCurve(long wallMs, long limit, long[] stampsMs, long[] unitsUpTo) {
        this.wallMs = wallMs;
        this.limit = limit;
        this.stampsMs = stampsMs;
        this.unitsUpTo = unitsUpTo;
    }

    /** How long from the snapshot until the {@code n}-th unit from then (1 for the next) may leave; 0 if at once. */
    public long msUntil(long n) {
        if (n <= 0 || limit == Long.MAX_VALUE) {
            return 0;
        }
        if (limit <= 0) {
            return Long.MAX_VALUE / 4; // nothing leaves: a part of 0
        }
        long rounds = (n - 1) / limit;
        long inRound = n - rounds * limit;
        return firstRoundMs(inRound) + rounds * ReleaseWindow.WINDOW_MS;
    }

    /** The {@code j}-th unit, {@code j <= limit}: once the window's oldest units have left, enough of them. */
    private long firstRoundMs(long j) {
        long held = unitsUpTo.length == 0 ? 0 : unitsUpTo[unitsUpTo.length - 1];
        long mustLeave = held - limit + j; // of the window's units, oldest first
        if (mustLeave <= 0) {
            return 0;
        }
        int lo = 0;
        int hi = unitsUpTo.length - 1;
        while (lo < hi) { // the first entry whose leaving takes the window far enough
            int mid = (lo + hi) >>> 1;
            if (unitsUpTo[mid] >= mustLeave) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return Math.max(0, stampsMs[lo] + ReleaseWindow.WINDOW_MS - wallMs);
    }
}
