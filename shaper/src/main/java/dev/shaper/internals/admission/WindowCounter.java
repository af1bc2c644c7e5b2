package dev.shaper.internals.admission;

/**
 * In-process counters of one window limit: what was admitted in the current window and in the one before it, and
 * when the current window ends. Times are nanoseconds of the caller's clock, so tests advance time instead of
 * sleeping. Not thread-safe; its owner guards it.
 *
 * <p>A fresh counter's windows are aligned to multiples of the period on that clock (all keys' windows together, as
 * Redis aligns its windows to the epoch); one that took Redis's state ({@link #adopt}) follows Redis's windows.
 *
 * <p>The fixed window counts {@link #current} alone. The sliding window estimates the count over the last period as
 * {@code current + previous x (the part of the previous window the sliding window still covers)}, which assumes the
 * previous window's traffic was spread evenly over it (see docs/admission.md for the bound).
 */
final class WindowCounter implements LimitState {

    final long periodNanos;
    /** Whether the previous window weighs in (the sliding window) or not (the fixed window). */
    final boolean sliding;
    private long endNanos;
    private double current;
    private double previous;

    WindowCounter(long periodNanos, boolean sliding, long nowNanos) {
        this.periodNanos = periodNanos;
        this.sliding = sliding;
        this.endNanos = Math.floorDiv(nowNanos, periodNanos) * periodNanos + periodNanos;
    }

    /** The same counts read by the other window algorithm: both count in the same windows, in Redis too. */
    WindowCounter readAs(boolean asSliding) {
        WindowCounter other = new WindowCounter(periodNanos, asSliding, endNanos - periodNanos);
        other.endNanos = endNanos;
        other.current = current;
        other.previous = previous;
        return other;
    }

    @Override
    public double left(AdmissionLimit limit, long nowNanos) {
        return limit.amount() - used(nowNanos);
    }

    @Override
    public long waitNanos(AdmissionLimit limit, double cost, double left, long nowNanos) {
        return waitNanos(limit.amount(), cost, nowNanos); // from the counts themselves, not amount - left rounded
    }

    @Override
    public void charge(AdmissionLimit limit, double cost, long nowNanos) {
        add(cost, nowNanos);
    }

    @Override
    public boolean isUnused(AdmissionLimit limit, long nowNanos) {
        return isUnused(nowNanos);
    }

    /**
     * {@code detail} as the window scripts reply: the current window's count, for the sliding window the previous
     * one's, and the microseconds until the current window ends.
     */
    @Override
    public void adopt(AdmissionLimit limit, double left, double[] detail, double divisor, double pendingHere,
                      long nowNanos) {
        adopt(detail[0] / divisor + pendingHere, sliding ? detail[1] / divisor : 0,
                (long) detail[detail.length - 1] * 1000, nowNanos);
    }

    @Override
    public double[] detail(long nowNanos) {
        long until = untilEnd(nowNanos) / 1000;
        return sliding ? new double[] {current(nowNanos), previous(nowNanos), until}
                : new double[] {current(nowNanos), until};
    }

    /** Moves on to the window that holds {@code nowNanos}: the current count becomes the previous, or both go. */
    private void roll(long nowNanos) {
        long past = nowNanos - endNanos;
        if (past < 0) {
            return;
        }
        long windows = past / periodNanos + 1;
        previous = windows == 1 ? current : 0;
        current = 0;
        endNanos += windows * periodNanos;
    }

    /** The count compared with the amount: the current window's, plus for a sliding one the weighted previous. */
    private double used(long nowNanos) {
        roll(nowNanos);
        return sliding && previous > 0 ? current + previous * weight(nowNanos) : current;
    }

    /** The part of the previous window that the sliding window ending now still covers, in (0, 1]. */
    private double weight(long nowNanos) {
        return (double) (endNanos - nowNanos) / periodNanos;
    }

    /**
     * How long until {@code cost} fits under {@code max}, if nothing more is admitted meanwhile: 0 if it fits now,
     * {@link #NEVER} if it never will ({@code cost > max}).
     */
    private long waitNanos(double max, double cost, long nowNanos) {
        double used = used(nowNanos);
        if (used + cost <= max) {
            return 0;
        }
        if (cost > max) {
            return NEVER;
        }
        long toEnd = endNanos - nowNanos;
        if (!sliding) {
            return toEnd;
        }
        if (current + cost <= max) {
            // Within this window: once the previous window's weight has fallen to (max - current - cost) / previous.
            double weight = (max - current - cost) / previous;
            return Math.max(1, (long) Math.ceil(toEnd - weight * periodNanos));
        }
        // In the next window, where this one is the previous: once its weight has fallen to (max - cost) / current.
        return toEnd + Math.max(0, (long) Math.ceil(periodNanos * (1 - (max - cost) / current)));
    }

    /** Counts {@code cost} in the current window. */
    void add(double cost, long nowNanos) {
        roll(nowNanos);
        current += cost;
    }

    /** True when the counts say nothing: forgetting the counter changes no decision. */
    private boolean isUnused(long nowNanos) {
        roll(nowNanos);
        return current <= 0 && (!sliding || previous <= 0);
    }

    /** The current window's count. */
    double current(long nowNanos) {
        roll(nowNanos);
        return current;
    }

    /** The previous window's count. */
    double previous(long nowNanos) {
        roll(nowNanos);
        return previous;
    }

    /** Nanoseconds until the current window ends. */
    long untilEnd(long nowNanos) {
        roll(nowNanos);
        return endNanos - nowNanos;
    }

    /**
     * Takes counts from elsewhere (Redis's, or a share of them): the current window ends in {@code untilNanos},
     * clamped to (0, period].
     */
    void adopt(double current, double previous, long untilNanos, long nowNanos) {
        this.current = current;
        this.previous = previous;
        this.endNanos = nowNanos + Math.max(1, Math.min(periodNanos, untilNanos));
    }
}
