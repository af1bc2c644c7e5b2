package dev.shaper.internals.admission;

import java.util.List;
import java.util.Locale;

/**
 * GCRA, the generic cell rate algorithm: the leaky bucket as a meter. Each limit keeps one number per key, the
 * theoretical arrival time (TAT): when the key would be back to a full burst if nothing more came. A record of cost c
 * fits if {@code max(TAT, now) + c x T - now <= burst x T}, T being one unit's emission interval (1 / rate); it then
 * moves the TAT on by {@code c x T}. It admits what a token bucket of the same rate and burst admits (what is left is
 * {@code burst - (TAT - now) / T}), from one timestamp instead of a balance and its time. In Redis one string per
 * limit holding the TAT in microseconds of Redis's clock, {@code shaper:gcra:{<key>}} for the first limit and
 * {@code ...:<n>} for the n-th, which expires when the TAT passes ({@code gcra.lua}).
 */
final class GcraAlgorithm extends ScriptedAlgorithm {

    /**
     * The fastest limit: Redis keeps a TAT in whole microseconds (an integer is Redis's most compact string), so each
     * charge rounds one emission interval by up to half a microsecond, 1 % of the interval at this rate.
     */
    static final double MAX_RATE_PER_SECOND = 20_000;

    GcraAlgorithm() {
        super("gcra", "shaper:gcra:", "dev/shaper/gcra.lua");
    }

    @Override
    public void check(List<AdmissionLimit> limits) {
        for (AdmissionLimit limit : limits) {
            if (limit.ratePerSecond() > MAX_RATE_PER_SECOND) {
                throw new IllegalArgumentException(String.format(Locale.ROOT, "a gcra limit of %s units per second"
                        + " is faster than gcra counts exactly (at most %,.0f per second); use token-bucket",
                        limit.ratePerSecond(), MAX_RATE_PER_SECOND));
            }
        }
    }

    @Override
    public LimitState newState(AdmissionLimit limit, long nowNanos) {
        return new ArrivalTime(nowNanos);
    }

    /**
     * An arrival time stays: what it says (how far ahead of now) holds under the new rate as a debt to pay. So unlike
     * a token bucket's balance, a larger burst is there at once and a new rate rescales what is left.
     */
    @Override
    public LimitState fit(LimitState current, AdmissionLimit limit, long nowNanos) {
        return current instanceof ArrivalTime ? current : newState(limit, nowNanos);
    }

    /**
     * One limit's theoretical arrival time, in nanoseconds of the caller's clock; a double, so that a tiny rate's
     * emission interval cannot overflow it.
     */
    static final class ArrivalTime implements LimitState {

        private double tatNanos;

        ArrivalTime(long nowNanos) {
            this.tatNanos = nowNanos;
        }

        @Override
        public double left(AdmissionLimit limit, long nowNanos) {
            return limit.burst() - Math.max(0, tatNanos - nowNanos) * limit.ratePerSecond() / 1e9;
        }

        @Override
        public void charge(AdmissionLimit limit, double cost, long nowNanos) {
            tatNanos = Math.max(tatNanos, nowNanos) + cost * 1e9 / limit.ratePerSecond();
        }

        @Override
        public boolean isUnused(AdmissionLimit limit, long nowNanos) {
            return tatNanos <= nowNanos;
        }

        /** What is left there becomes the arrival time that leaves as much here. */
        @Override
        public void adopt(AdmissionLimit limit, double left, double[] detail, double divisor, double pendingHere,
                          long nowNanos) {
            double tokens = Math.min(limit.burst(), left / divisor - pendingHere);
            tatNanos = nowNanos + (limit.burst() - tokens) * 1e9 / limit.ratePerSecond();
        }
    }
}
