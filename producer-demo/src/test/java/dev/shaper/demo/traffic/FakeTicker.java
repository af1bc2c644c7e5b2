package dev.shaper.demo.traffic;

/** A {@link Ticker} whose time moves only when the code under test sleeps: pacing tests run instantly. */
final class FakeTicker implements Ticker {

    private long now;

    @Override
    public long nanoTime() {
        return now;
    }

    @Override
    public void sleepNanos(long nanos) {
        now += nanos;
    }
}
