package dev.shaper.demo.traffic;

/**
 * The shape of generated traffic over time, stated as how many records should have been sent by a given
 * moment. A generator sends whenever it is behind this count, so a pattern with a jump (a burst) makes it
 * send a run of records back to back, and a smooth pattern paces them.
 */
public interface TrafficPattern {

    /**
     * How many records are due in the first {@code seconds} of the run: non-decreasing, 0 at 0. Fractions
     * are allowed; the generator sends the whole part.
     */
    double dueBy(double seconds);

    /** A one-line description for the console, e.g. {@code steady 100/s}. */
    String describe();
}
