package dev.shaper.internals.admission;

/**
 * One admission key's in-process state under each limit of its policy (a local bucket or a batched mirror): a token
 * bucket per limit, or a window counter per limit. A record is admitted only if every limit allows its cost, and
 * then every limit is charged; a refusal charges none and waits for the limit that needs longest. Not thread-safe;
 * its owner guards it.
 *
 * <p>When the key's policy changes (another algorithm, more or fewer limits, a window of another length), the state
 * is fitted to it at the next decision: a limit at the same place keeps its state (a token bucket's balance is then
 * capped at the new burst by the refill), the others start unused.
 */
final class LimitStates {

    private AdmissionPolicy fittedTo;
    private AdmissionAlgorithm algorithm;
    private TokenBucket[] buckets;
    private WindowCounter[] windows;

    /** Unused states for {@code policy}: full buckets, empty windows. */
    LimitStates(AdmissionPolicy policy, long nowNanos) {
        fit(policy, nowNanos);
    }

    /** Makes the states match {@code policy}; cheap when it is the policy of the last call. */
    private void fit(AdmissionPolicy policy, long nowNanos) {
        if (policy == fittedTo) {
            return;
        }
        if (hasShapeOf(policy)) {
            fittedTo = policy; // e.g. another share of the same policy: the states stay as they are
            return;
        }
        int n = policy.size();
        if (policy.algorithm() == AdmissionAlgorithm.TOKEN_BUCKET) {
            TokenBucket[] fitted = new TokenBucket[n];
            for (int i = 0; i < n; i++) {
                fitted[i] = buckets != null && i < buckets.length ? buckets[i]
                        : new TokenBucket(policy.bucket(i).burst(), nowNanos);
            }
            buckets = fitted;
            windows = null;
        } else {
            WindowCounter[] fitted = new WindowCounter[n];
            for (int i = 0; i < n; i++) {
                long period = policy.limit(i).periodNanos();
                fitted[i] = windows != null && i < windows.length && windows[i].periodNanos == period ? windows[i]
                        : new WindowCounter(period, nowNanos);
            }
            windows = fitted;
            buckets = null;
        }
        algorithm = policy.algorithm();
        fittedTo = policy;
    }

    /** True if the states are those of {@code policy}'s algorithm, number of limits and window lengths. */
    private boolean hasShapeOf(AdmissionPolicy policy) {
        if (fittedTo == null || policy.algorithm() != algorithm || policy.size() != fittedTo.size()) {
            return false;
        }
        if (windows != null) {
            for (int i = 0; i < windows.length; i++) {
                if (windows[i].periodNanos != policy.limit(i).periodNanos()) {
                    return false;
                }
            }
        }
        return true;
    }

    /** Takes {@code cost} from every limit if each allows it now; otherwise takes nothing. */
    AdmissionDecision tryTake(AdmissionPolicy policy, double cost, long nowNanos) {
        fit(policy, nowNanos);
        int n = policy.size();
        long longest = 0;
        int binding = -1;
        double bindingLeft = 0;
        double least = Double.POSITIVE_INFINITY;
        boolean sliding = algorithm == AdmissionAlgorithm.SLIDING_WINDOW;
        for (int i = 0; i < n; i++) {
            double left = left(policy, i, sliding, nowNanos);
            long wait;
            if (buckets != null) {
                wait = left >= cost ? 0 : nanos((cost - left) / policy.bucket(i).ratePerSecond());
            } else {
                wait = windows[i].waitNanos(sliding, policy.limit(i).amount(), cost, nowNanos);
            }
            if (wait > 0 && (binding < 0 || wait > longest)) {
                longest = wait;
                binding = i;
                bindingLeft = left;
            }
            least = Math.min(least, left);
        }
        if (binding >= 0) {
            return AdmissionDecision.refusedNanos(bindingLeft, longest, binding);
        }
        take(policy, cost, nowNanos);
        return AdmissionDecision.allowed(least - cost);
    }

    /** Charges {@code cost} to every limit whatever it holds (a token bucket may go into debt). */
    void take(AdmissionPolicy policy, double cost, long nowNanos) {
        fit(policy, nowNanos);
        for (int i = 0; i < policy.size(); i++) {
            if (buckets != null) {
                buckets[i].charge(policy.bucket(i), cost, nowNanos);
            } else {
                windows[i].add(cost, nowNanos);
            }
        }
    }

    private double left(AdmissionPolicy policy, int i, boolean sliding, long nowNanos) {
        if (buckets != null) {
            return buckets[i].tokens(policy.bucket(i), nowNanos);
        }
        return policy.limit(i).amount() - windows[i].used(sliding, nowNanos);
    }

    /** What each limit has left now. */
    double[] left(AdmissionPolicy policy, long nowNanos) {
        fit(policy, nowNanos);
        boolean sliding = algorithm == AdmissionAlgorithm.SLIDING_WINDOW;
        double[] left = new double[policy.size()];
        for (int i = 0; i < left.length; i++) {
            left[i] = left(policy, i, sliding, nowNanos);
        }
        return left;
    }

    /** True when no limit says more than "unused" (full buckets, empty windows): forgetting it changes nothing. */
    boolean isUnused(AdmissionPolicy policy, long nowNanos) {
        fit(policy, nowNanos);
        boolean sliding = algorithm == AdmissionAlgorithm.SLIDING_WINDOW;
        for (int i = 0; i < policy.size(); i++) {
            boolean unused = buckets != null ? buckets[i].isFull(policy.bucket(i), nowNanos)
                    : windows[i].isUnused(sliding, nowNanos);
            if (!unused) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes the state of {@code shared} divided by {@code divisor} (1 for a mirror, the live instances for a local
     * share), less {@code pendingHere}: what was admitted here and is not yet in {@code shared}. A state of another
     * shape (the policy changed meanwhile) is ignored.
     */
    void adopt(AdmissionPolicy policy, SharedState shared, double divisor, double pendingHere, long nowNanos) {
        fit(policy, nowNanos);
        int n = policy.size();
        if (shared.size() != n || (windows != null) != (shared.current() != null)) {
            return;
        }
        for (int i = 0; i < n; i++) {
            if (buckets != null) {
                buckets[i].reset(shared.left()[i] / divisor - pendingHere, nowNanos);
            } else {
                windows[i].adopt(shared.current()[i] / divisor + pendingHere, shared.previous()[i] / divisor,
                        shared.untilMicros()[i] * 1000, nowNanos);
            }
        }
    }

    /** This state in the shape of a script's reply, to seed another state from it ({@link #adopt}). */
    SharedState snapshot(AdmissionPolicy policy, long nowNanos) {
        double[] left = left(policy, nowNanos);
        long[] waits = new long[left.length];
        if (buckets != null) {
            return new SharedState(true, left, waits, null, null, null);
        }
        double[] current = new double[left.length];
        double[] previous = new double[left.length];
        long[] until = new long[left.length];
        for (int i = 0; i < left.length; i++) {
            current[i] = windows[i].current(nowNanos);
            previous[i] = windows[i].previous(nowNanos);
            until[i] = windows[i].untilEnd(nowNanos) / 1000;
        }
        return new SharedState(true, left, waits, current, previous, until);
    }

    /** Seconds as whole nanoseconds, rounded up; {@link WindowCounter#NEVER} beyond a long. */
    private static long nanos(double seconds) {
        double nanos = Math.ceil(seconds * 1e9);
        return nanos >= Long.MAX_VALUE ? WindowCounter.NEVER : Math.max(1, (long) nanos);
    }
}
