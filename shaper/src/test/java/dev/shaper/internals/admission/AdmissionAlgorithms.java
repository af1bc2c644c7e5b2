package dev.shaper.internals.admission;

import java.util.stream.Stream;

/** The algorithms as sources of parameterized tests: {@code @MethodSource("...AdmissionAlgorithms#all")}. */
final class AdmissionAlgorithms {

    private AdmissionAlgorithms() {
    }

    /** Every algorithm. */
    static Stream<AdmissionAlgorithm> all() {
        return AdmissionAlgorithm.all().stream();
    }

    /** The algorithms without a burst: the fixed and the sliding window. */
    static Stream<AdmissionAlgorithm> windows() {
        return all().filter(a -> !a.hasBurst());
    }

    /** The current window's count per limit, in a window algorithm's state. */
    static double[] current(SharedState state) {
        return column(state, 0);
    }

    /** The previous window's count per limit: the sliding window's, 0 for the fixed window. */
    static double[] previous(SharedState state) {
        return state.algorithm() == AdmissionAlgorithm.SLIDING_WINDOW ? column(state, 1) : new double[state.size()];
    }

    /** Microseconds until the current window ends, per limit. */
    static long[] untilMicros(SharedState state) {
        double[] until = column(state, state.algorithm().detailValues() - 1);
        long[] whole = new long[until.length];
        for (int i = 0; i < until.length; i++) {
            whole[i] = (long) until[i];
        }
        return whole;
    }

    private static double[] column(SharedState state, int value) {
        double[] column = new double[state.size()];
        for (int i = 0; i < column.length; i++) {
            column[i] = state.detail()[i][value];
        }
        return column;
    }

    /** One token bucket of {@code rate} per second and {@code burst}, as a rule's admission.rate and burst. */
    static AdmissionPolicy oneBucket(double rate, double burst) {
        return AdmissionPolicy.of(new AdmissionRule(rate, burst));
    }
}
