package dev.shaper.internals.admission;

/**
 * One admission key's state under each limit of its policy, as a script reports it after a call ({@link
 * LimitScript}), or as an in-process state describes itself to seed another ({@link LimitStates#snapshot}).
 *
 * @param algorithm  the algorithm whose state it is: another algorithm's state cannot be taken in
 * @param allowed    whether the call admitted the cost (take), or always true (charge, cap)
 * @param left       per limit, what is left: a token bucket's tokens, a window's amount less its (weighted) count
 * @param waitMicros per limit, whole microseconds until the cost fits in that limit (0 if it does)
 * @param detail     per limit, the algorithm's own values beyond these (see {@link LimitState#detail})
 */
record SharedState(AdmissionAlgorithm algorithm, boolean allowed, double[] left, long[] waitMicros,
                   double[][] detail) {

    /** The decision this state means for the call that produced it. */
    AdmissionDecision toDecision() {
        if (allowed) {
            double least = left[0];
            for (int i = 1; i < left.length; i++) {
                least = Math.min(least, left[i]);
            }
            return AdmissionDecision.allowed(least);
        }
        int binding = 0;
        for (int i = 1; i < waitMicros.length; i++) {
            if (waitMicros[i] > waitMicros[binding]) {
                binding = i;
            }
        }
        long ms = Math.min(AdmissionDecision.MAX_WAIT_MS, Math.max(1, (waitMicros[binding] + 999) / 1000));
        return new AdmissionDecision(false, left[binding], ms, binding);
    }

    /** How many limits. */
    int size() {
        return left.length;
    }
}
