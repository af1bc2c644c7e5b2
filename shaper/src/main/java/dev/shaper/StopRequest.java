package dev.shaper;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Why and with which exit code the shaper is to stop: the first request wins (a fatal stream-thread error, a topic
 * missing for too long, Kafka Streams stopping on its own), and {@link ShaperApplication#runUntilStopped} returns
 * its code.
 */
final class StopRequest {

    private final CountDownLatch requested = new CountDownLatch(1);
    private volatile int exitCode = ShaperApplication.EXIT_OK;

    /** Asks for a stop with {@code code}, unless one was asked for already. */
    synchronized void request(int code) {
        if (requested.getCount() > 0) {
            exitCode = code;
            requested.countDown();
        }
    }

    /** Waits for a request; true if one came within {@code timeout}. */
    boolean await(Duration timeout) throws InterruptedException {
        return requested.await(timeout.toNanos(), TimeUnit.NANOSECONDS);
    }

    void await() throws InterruptedException {
        requested.await();
    }

    /** The exit code asked for, {@link ShaperApplication#EXIT_OK} until a stop is. */
    int exitCode() {
        return exitCode;
    }
}
