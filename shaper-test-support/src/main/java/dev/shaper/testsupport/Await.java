package dev.shaper.testsupport;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition by polling it, up to a deadline: the alternative to fixed sleeps. */
public final class Await {

    private static final long POLL_INTERVAL_MS = 50;

    private Await() {
    }

    /**
     * Returns as soon as {@code condition} holds; fails with an {@link AssertionError} that names what was
     * awaited and the state {@code progress} describes, if it does not hold within {@code timeout}.
     */
    public static void until(Supplier<String> progress, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                throw new AssertionError("timed out after " + timeout.toMillis() + " ms waiting; state: "
                        + progress.get());
            }
            try {
                Thread.sleep(POLL_INTERVAL_MS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted while waiting; state: " + progress.get(), e);
            }
        }
    }

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(() -> what, timeout, condition);
    }
}
