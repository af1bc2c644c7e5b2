package dev.shaper.demo.traffic;

import java.time.Duration;

/**
 * A {@link Ticker} whose time moves only when the code under test sleeps, or the test moves it: pacing tests run
 * instantly.
 */
public final class FakeTicker implements Ticker {

    private long now;

    /** The test's own step of time. */
    public void advance(Duration step) {
        now += step.toNanos();
    }

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public void sleepNanos(long nanos) {
        now += nanos;
    }
}
