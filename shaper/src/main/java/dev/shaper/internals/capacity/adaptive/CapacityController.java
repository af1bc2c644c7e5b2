package dev.shaper.internals.capacity.adaptive;

/**
 * Decides the next capacity from the capacity in use and what the writers reported since the previous decision.
 *
 * <p>Implementations are deterministic and keep no state of their own: the same capacities and signals give the same
 * decisions, on every instance and in every test. They never leave their [min, max], and hold the capacity where it
 * is, with {@link CapacityDecision.Reason#NO_FEEDBACK}, for a signal without reports.
 */
public interface CapacityController {

    /**
     * @param current the capacity in use, units per second
     * @param signal  the writers' reports since the previous decision, combined
     */
    CapacityDecision decide(double current, FeedbackSignal signal);
}
