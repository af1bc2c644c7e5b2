package dev.shaper.internals.admission;

/**
 * One admission key's in-process state under each limit of its policy (a local share or a batched mirror): one
 * {@link LimitState} per limit, of the policy's algorithm. A record is admitted only if every limit allows its cost,
 * and then every limit is charged; a refusal charges none and waits for the limit that needs longest. Not
 * thread-safe; its owner guards it.
 *
 * <p>When the key's policy changes (another algorithm, more or fewer limits, a window of another length), the state
 * is fitted to it at the next decision: a limit at the same place keeps its state where the algorithm can go on from
 * it ({@link AdmissionAlgorithm#fit}; a token bucket's balance is then capped at the new burst by the refill), the
 * others start unused.
 */
final class LimitStates {

    private AdmissionPolicy fittedTo;
    private LimitState[] states = new LimitState[0];

    /** Unused states for {@code policy}: full buckets, empty windows. */
    LimitStates(AdmissionPolicy policy, long nowNanos) {
        fit(policy, nowNanos);
    }

    /** Makes the states match {@code policy}; cheap when it is the policy of the last call. */
    private void fit(AdmissionPolicy policy, long nowNanos) {
        if (policy == fittedTo) {
            return;
        }
        int n = policy.size();
        LimitState[] fitted = n == states.length ? states : new LimitState[n];
        for (int i = 0; i < n; i++) {
            LimitState current = i < states.length ? states[i] : null;
            fitted[i] = policy.algorithm().fit(current, policy.limit(i), nowNanos);
        }
        states = fitted;
        fittedTo = policy;
    }

    /** Takes {@code cost} from every limit if each allows it now; otherwise takes nothing. */
    AdmissionDecision tryTake(AdmissionPolicy policy, double cost, long nowNanos) {
        fit(policy, nowNanos);
        int n = policy.size();
        long longest = 0;
        int binding = -1;
        double bindingLeft = 0;
        double least = Double.POSITIVE_INFINITY;
        for (int i = 0; i < n; i++) {
            AdmissionLimit limit = policy.limit(i);
            double left = states[i].left(limit, nowNanos);
            long wait = states[i].waitNanos(limit, cost, left, nowNanos);
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
            states[i].charge(policy.limit(i), cost, nowNanos);
        }
    }

    /** What each limit has left now. */
    double[] left(AdmissionPolicy policy, long nowNanos) {
        fit(policy, nowNanos);
        double[] left = new double[policy.size()];
        for (int i = 0; i < left.length; i++) {
            left[i] = states[i].left(policy.limit(i), nowNanos);
        }
        return left;
    }

    /** True when no limit says more than "unused" (full buckets, empty windows): forgetting it changes nothing. */
    boolean isUnused(AdmissionPolicy policy, long nowNanos) {
        fit(policy, nowNanos);
        for (int i = 0; i < policy.size(); i++) {
            if (!states[i].isUnused(policy.limit(i), nowNanos)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Takes the state of {@code shared} divided by {@code divisor} (1 for a mirror, the live instances for a local
     * share), less {@code pendingHere}: what was admitted here and is not yet in {@code shared}. A state of another
     * algorithm or number of limits (the policy changed meanwhile) is ignored.
     */
    void adopt(AdmissionPolicy policy, SharedState shared, double divisor, double pendingHere, long nowNanos) {
        fit(policy, nowNanos);
        int n = policy.size();
        if (shared.size() != n || !shared.algorithm().equals(policy.algorithm())) {
            return;
        }
        for (int i = 0; i < n; i++) {
            states[i].adopt(policy.limit(i), shared.left()[i], shared.detail()[i], divisor, pendingHere, nowNanos);
        }
    }

    /** This state in the shape of a script's reply, to seed another state from it ({@link #adopt}). */
    SharedState snapshot(AdmissionPolicy policy, long nowNanos) {
        double[] left = left(policy, nowNanos);
        double[][] detail = new double[left.length][];
        for (int i = 0; i < left.length; i++) {
            detail[i] = states[i].detail(nowNanos);
        }
        return new SharedState(policy.algorithm(), true, left, new long[left.length], detail);
    }
}
