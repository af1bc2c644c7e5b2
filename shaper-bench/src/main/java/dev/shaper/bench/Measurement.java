package dev.shaper.bench;

/**
 * The outcome of timing one application on one pre-loaded input.
 *
 * @param guarantee          Kafka Streams processing guarantee
 * @param scenario           load pattern
 * @param app                application under test
 * @param records            input records
 * @param output             records counted on the output topic (committed)
 * @param rejected           records counted on the rejected topic (committed)
 * @param firstOutputSeconds from {@code KafkaStreams.start()} to the first committed output
 * @param inputDoneSeconds   from {@code KafkaStreams.start()} until the application's committed input offsets
 *                           covered the whole input; NaN if not seen (see {@link InputProgressProbe})
 * @param totalSeconds       from {@code KafkaStreams.start()} to the last committed output; NaN if not reached
 * @param streamThreadCpuSeconds CPU time of the application's stream thread(s) (Java threads only; RocksDB's
 *                           native background threads are not included)
 * @param appThreadsCpuSeconds   CPU time of all Java threads named after the application (stream threads,
 *                           producer and consumer network threads)
 * @param changelogBytes     bytes the application's producers sent to its changelog topics (the shaper's stores)
 * @param queue              waits read from {@code shaper.queued.ms}; all zero for the pass-through
 * @param loadAverage        the machine's 1-minute load average when the measurement ended
 * @param jitSeconds         time the JVM's JIT compilers spent compiling during the measurement
 *                           ({@code CompilationMXBean}): CPU the measured app did not get, on a 2-core machine
 * @param error              why the measurement failed, or null
 */
record Measurement(String guarantee, Scenario scenario, BenchApp app, long records, long output, long rejected,
                   double firstOutputSeconds, double inputDoneSeconds, double totalSeconds, double streamThreadCpuSeconds,
                   double appThreadsCpuSeconds, double changelogBytes, OutputCounter.QueueStats queue, double loadAverage,
                   double jitSeconds, String error) {

    boolean ok() {
        return error == null && !Double.isNaN(totalSeconds);
    }

    /** Records per second from application start to the last committed output. */
    double recordsPerSecond() {
        return ok() ? records / totalSeconds : Double.NaN;
    }

    /**
     * Records per second from the first to the last committed output: the steady rate, without the
     * start-up (group join, task and store initialisation).
     */
    double steadyRecordsPerSecond() {
        return ok() && totalSeconds > firstOutputSeconds ? records / (totalSeconds - firstOutputSeconds) : Double.NaN;
    }

    /** Stream-thread CPU microseconds per record: a figure that depends little on other load on the machine. */
    double streamThreadCpuMicrosPerRecord() {
        return streamThreadCpuSeconds * 1e6 / records;
    }

    /** Changelog bytes per input record: what persisting the queues costs. */
    double changelogBytesPerRecord() {
        return changelogBytes / records;
    }

    /** Share of the output that waited in the schedule store (estimated from the counter's sample). */
    double queuedFraction() {
        return queue.sampled() == 0 ? 0 : (double) queue.queued() / queue.sampled();
    }
}
