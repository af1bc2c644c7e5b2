package dev.shaper.internals.admission;

import java.time.Duration;

/**
 * Runs the admission's background work: the Redis pings, the batched sync, the eviction of full local buckets
 * and the count of live instances. In production that is one daemon thread ({@link DaemonThreadScheduler}); tests pass
 * a scheduler whose clock they advance, so that no test waits for a period to pass.
 */
public interface AdmissionScheduler extends AutoCloseable {

    /** Runs {@code task} after {@code initialDelay}, then {@code delay} after each run ends, until closed. */
    void scheduleWithFixedDelay(Runnable task, Duration initialDelay, Duration delay);

    /** Runs {@code task} once, as soon as the scheduler is free; nothing once closed. Any thread may call it. */
    void execute(Runnable task);

    /** Cancels the periodic tasks and lets a running one finish, waiting a few seconds at most. */
    @Override
    void close();
}
