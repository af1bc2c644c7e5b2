package dev.shaper.bench;

import java.util.Map;

/**
 * Where the measured applications run: in the benchmark's own JVM, beside the broker and the output counter
 * ({@link InProcess}), or each application type in a JVM of its own ({@link WorkerProcesses}). One application
 * runs at a time.
 */
interface AppRunner extends AutoCloseable {

    /**
     * Builds and starts {@code app}; returns {@link System#nanoTime()} just before its start (the clock is the
     * machine's monotonic clock, the same in every JVM on it).
     */
    long start(BenchApp app, Map<String, String> settings, int partitions) throws Exception;

    /** Why the running application failed, or null. */
    String failure() throws Exception;

    /** The running application's Kafka Streams state, for progress lines. */
    String state() throws Exception;

    /** The running application's figures, read now. */
    AppFigures figures() throws Exception;

    /** Closes the running application and removes its state. */
    void stop() throws Exception;

    /** What the results' header says about where the applications ran. */
    String describe();

    @Override
    void close();

    /** Runs the applications in this JVM. */
    final class InProcess implements AppRunner {
        private AppRun run;

        @Override
        public long start(BenchApp app, Map<String, String> settings, int partitions) throws Exception {
            stop(); // an app left by a failed measurement must not run on beside this one
            run = new AppRun(app, settings, partitions);
            return run.start();
        }

        @Override
        public String failure() {
            return run.failure();
        }

        @Override
        public String state() {
            return run.state();
        }

        @Override
        public AppFigures figures() {
            return run.figures();
        }

        @Override
        public void stop() throws Exception {
            AppRun closing = run;
            run = null;
            if (closing != null) {
                closing.close();
            }
        }

        @Override
        public String describe() {
            return "apps: in the benchmark's JVM, beside the broker and the output counter (--app.jvm=shared)";
        }

        @Override
        public void close() {
        }
    }
}
