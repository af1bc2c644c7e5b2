package dev.shaper.testsupport;

import dev.shaper.internals.scheduling.BackgroundScheduler;
import java.time.Duration;
import java.util.Comparator;
import java.util.PriorityQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link BackgroundScheduler} on a clock that moves only when the test advances it. The periodic work runs on
 * the test's thread, each run at its due time on that clock, which is also the clock to give the admission
 * ({@link #nanoTime}): a test advances time instead of sleeping. Work handed over with {@link #execute} (by the
 * Redis client's I/O thread when it reconnects, say) waits for the next {@link #runDue} or {@link #advance}.
 */
public final class ManualScheduler implements BackgroundScheduler {

    /** A run of a task; {@code delayNanos} is 0 for a task that runs once. */
    private record Run(long dueNanos, long sequence, Runnable task, long delayNanos) {
    }

    private final AtomicLong now;
    private final PriorityQueue<Run> runs = new PriorityQueue<>(
            Comparator.comparingLong(Run::dueNanos).thenComparingLong(Run::sequence));
    private long sequence;
    private boolean closed;

    /** A scheduler whose clock starts at one second (any start will do: only differences matter). */
    public ManualScheduler() {
        this(1_000_000_000L);
    }

    public ManualScheduler(long startNanos) {
        this.now = new AtomicLong(startNanos);
    }

    /** The scheduler's clock, in nanoseconds: pass {@code scheduler::nanoTime} as the admission's clock. */
    public long nanoTime() {
        return now.get();
    }

    @Override
    public synchronized void scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay) {
        if (delay.isNegative() || delay.isZero()) {
            throw new IllegalArgumentException("a periodic task needs a delay > 0, got " + delay);
        }
        add(now.get() + initialDelay.toNanos(), task, delay.toNanos());
    }

    @Override
    public synchronized void execute(Runnable task) {
        add(now.get(), task, 0);
    }

    /** Runs every task due now, in the order they fell due, and those they hand over meanwhile. */
    public void runDue() {
        advance(Duration.ZERO);
    }

    /**
     * Moves the clock forward by {@code duration}, running each task that falls due on the way with the clock set
     * to its due time, and a periodic task again one delay after each run.
     */
    public void advance(Duration duration) {
        long target = now.get() + duration.toNanos();
        Run run;
        while ((run = nextDueBy(target)) != null) {
            run.task().run();
            if (run.delayNanos() > 0) {
                synchronized (this) {
                    add(now.get() + run.delayNanos(), run.task(), run.delayNanos());
                }
            }
        }
        now.set(target);
    }

    /** How many runs are waiting, due or not. */
    public synchronized int pending() {
        return runs.size();
    }

    /** Drops every task; later ones are ignored. */
    @Override
    public synchronized void close() {
        closed = true;
        runs.clear();
    }

    private synchronized Run nextDueBy(long target) {
        Run next = runs.peek();
        if (next == null || next.dueNanos() > target) {
            return null;
        }
        runs.poll();
        now.set(Math.max(now.get(), next.dueNanos()));
        return next;
    }

    private void add(long dueNanos, Runnable task, long delayNanos) {
        if (!closed) {
            runs.add(new Run(dueNanos, sequence++, task, delayNanos));
        }
    }
}
