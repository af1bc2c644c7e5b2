package dev.shaper.internals.capacity;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.function.DoubleBinaryOperator;

/**
 * What a pool was over the last seconds, so that a release is held to the pool in effect when it is stamped, not only
 * to the pool when it is decided. A stream thread stamps its releases with the time it read before a batch of
 * records or a release scan, which may be some way behind the clock by the time it asks; capacity another instance
 * gave up meanwhile must not let releases stamped before it was given up fill a second that instance's releases
 * still count in. So a release stamped at {@code t} gets the lowest pool from {@code t} to now.
 *
 * <p>Kept for {@link #KEPT_MS}; a release stamped earlier than every change kept gets the lowest kept. Not
 * thread-safe: the pool guards it.
 */
final class PoolHistory {

    /** How long changes are kept: far longer than a stream thread's time may lag the clock. */
    static final long KEPT_MS = 10_000;

    /** The pool from {@code fromMs} on, oldest first. */
    private record Change(long fromMs, double pool) {
    }

    private final ArrayDeque<Change> changes = new ArrayDeque<>();

    /** The pool is {@code pool} from {@code atMs} on. */
    void changed(long atMs, double pool) {
        Change last = changes.peekLast();
        if (last != null && last.pool == pool) {
            return;
        }
        changes.addLast(new Change(atMs, pool));
        // Drop what is older than KEPT_MS, except the change still in effect at that horizon.
        while (changes.size() > 1) {
            Iterator<Change> oldest = changes.iterator();
            oldest.next();
            if (oldest.next().fromMs > atMs - KEPT_MS) {
                break;
            }
            changes.removeFirst();
        }
    }

    /**
     * The lowest pool from {@code wallMs} until now, {@code current} being the pool now: what a release stamped at
     * {@code wallMs} may be held to.
     */
    double lowestSince(long wallMs, double current) {
        return mostSince(wallMs, current, Math::min);
    }

    /** The highest pool from {@code wallMs} until now, {@code current} being the pool now. */
    double highestSince(long wallMs, double current) {
        return mostSince(wallMs, current, Math::max);
    }

    /** {@code current} and every pool in effect since {@code wallMs}, folded by {@code most}. */
    private double mostSince(long wallMs, double current, DoubleBinaryOperator most) {
        double result = current;
        Iterator<Change> newestFirst = changes.descendingIterator();
        while (newestFirst.hasNext()) {
            Change change = newestFirst.next();
            result = most.applyAsDouble(result, change.pool);
            if (change.fromMs <= wallMs) {
                break; // in effect at wallMs: nothing earlier matters
            }
        }
        return result;
    }
}
