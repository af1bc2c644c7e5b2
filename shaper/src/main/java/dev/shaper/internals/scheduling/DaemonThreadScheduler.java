package dev.shaper.internals.scheduling;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/** The production {@link BackgroundScheduler}: one daemon thread, so that admission never keeps a JVM alive. */
public final class DaemonThreadScheduler implements BackgroundScheduler {

    /** How long {@link #close} waits for a running task, e.g. a ping or a sync. */
    private static final Duration CLOSE_WAIT = Duration.ofSeconds(5);

    private final ScheduledExecutorService executor;

    /** One daemon thread named {@code threadName}, started by the first task. */
    public DaemonThreadScheduler(String threadName) {
        this.executor = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    @Override
    public void scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay) {
        executor.scheduleWithFixedDelay(task, initialDelay.toNanos(), delay.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void execute(Runnable task) {
        try {
            executor.execute(task);
        } catch (RejectedExecutionException closing) {
            // closed: nobody needs the task's outcome any more
        }
    }

    /** Leaves the calling thread interrupted if it was interrupted while waiting. */
    @Override
    public void close() {
        executor.shutdown(); // cancels the periodic tasks
        try {
            if (!executor.awaitTermination(CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS)) {
                executor.shutdownNow();
            }
        } catch (InterruptedException e) {
            executor.shutdownNow();
            Thread.currentThread().interrupt();
        }
    }
}
