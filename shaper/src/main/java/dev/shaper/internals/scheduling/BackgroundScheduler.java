package dev.shaper.internals.scheduling;

import java.time.Duration;

/**
 * Runs background work off the stream threads: the admission's Redis pings, batched sync, eviction of full local
 * buckets and count of live instances; the capacity's lease renewals and closed-loop decisions. In production that is
 * one daemon thread per user ({@link DaemonThreadScheduler}); tests pass a scheduler whose clock they advance, so that
 * no test waits for a period to pass.
 */
public interface BackgroundScheduler extends AutoCloseable {

    /** Runs {@code task} after {@code initialDelay}, then {@code delay} after each run ends, until closed. */
    void scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay);

    /** Runs {@code task} once, as soon as the scheduler is free; nothing once closed. Any thread may call it. */
    void execute(Runnable task);

    /** Cancels the periodic tasks and lets a running one finish, waiting a few seconds at most. */
    @Override
    void close();
}
