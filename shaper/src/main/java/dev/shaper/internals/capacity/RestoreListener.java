package dev.shaper.internals.capacity;

/**
 * Told once per task start how many queued records the task's stores held when it opened (restored from the
 * changelog, or left by the task before): the seam through which the capacity warms up after a restore, without the
 * processor knowing the closed loop. Called on the task's stream thread; must be quick and must not throw.
 */
@FunctionalInterface
public interface RestoreListener {

    /** A listener that does nothing: no closed loop. */
    RestoreListener NONE = (partition, records) -> { };

    /**
     * @param partition the task's input partition
     * @param records   the queued records its stores held when it opened
     */
    void restored(int partition, long records);
}
