package dev.shaper.demo.traffic;

import java.util.concurrent.locks.LockSupport;

/** The time source of pacing loops, so that tests run them on a fake clock instead of sleeping. */
public interface Ticker {

    /** A monotonic time in nanoseconds, like {@link System#nanoTime()}. */
    long nanoTime();

    /** Waits about {@code nanos}; may return early (an interrupt), callers re-check the time. */
    void sleepNanos(long nanos);

    /** The real clock. */
    Ticker SYSTEM = new Ticker() {
        @Override
        public long nanoTime() {
            return System.nanoTime();
        }

        @Override
        public void sleepNanos(long nanos) {
            LockSupport.parkNanos(nanos);
        }
    };
}
