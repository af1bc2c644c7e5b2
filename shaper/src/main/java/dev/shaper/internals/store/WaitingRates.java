package dev.shaper.internals.store;

import java.util.Map;
import java.util.TreeMap;

/**
 * The rates of the keys that have records queued in a task, as a count per rate: the fastest of them sets the
 * release tick. Keys share a handful of rates (one per rule), so this stays a few entries however many keys wait.
 */
final class WaitingRates {

    private final TreeMap<Double, Integer> keysByRate = new TreeMap<>();

    /** A key of {@code rate} records per second started waiting. */
    void add(double rate) {
        keysByRate.merge(rate, 1, Integer::sum);
    }

    /** A key of {@code rate} stopped waiting; a rate no key was counted at (its rule changed meanwhile) is ignored. */
    void remove(double rate) {
        Integer keys = keysByRate.get(rate);
        if (keys != null) {
            if (keys <= 1) {
                keysByRate.remove(rate);
            } else {
                keysByRate.put(rate, keys - 1);
            }
        }
    }

    /** Nothing waits in the task: any count left over from a rule that changed goes. */
    void clear() {
        keysByRate.clear();
    }

    /** The fastest rate among the waiting keys; 0 when none waits. */
    double fastest() {
        Map.Entry<Double, Integer> last = keysByRate.lastEntry();
        return last == null ? 0 : last.getKey();
    }
}
