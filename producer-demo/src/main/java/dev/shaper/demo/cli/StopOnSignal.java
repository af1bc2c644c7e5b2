package dev.shaper.demo.cli;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Makes Ctrl-C (SIGINT) or SIGTERM stop a command cleanly: the JVM's shutdown hook calls {@code stop}, then
 * waits until the command has finished its own cleanup ({@link #close()}), because the JVM halts as soon as
 * the hooks return. Use in try-with-resources around the command's work.
 */
final class StopOnSignal implements AutoCloseable {

    private static final long CLEANUP_WAIT_SECONDS = 60;

    private final CountDownLatch finished = new CountDownLatch(1);
    private final Thread hook;

    StopOnSignal(String name, Runnable stop) {
        this.hook = new Thread(() -> {
            stop.run();
            try {
                finished.await(CLEANUP_WAIT_SECONDS, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, name + "-shutdown");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** The command has cleaned up: a pending hook may let the JVM exit, and no hook runs any more. */
    @Override
    public void close() {
        finished.countDown();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
            // The hook is running (Ctrl-C): it returns now that cleanup is done.
        }
    }
}
