package dev.shaper.bench;

import java.util.Map;

/**
 * What one measured application's own JVM reports about a measurement, read the moment the last output record
 * was counted (before the application closes).
 *
 * @param jitSeconds             time the JIT compilers of the application's JVM spent compiling during the run
 * @param cpuSeconds             CPU seconds of every thread group of that JVM ({@link ThreadCpuSnapshot}), largest
 *                               first; with the application in a JVM of its own, only the application's threads
 * @param streamThreadCpuSeconds CPU time of the application's stream thread(s)
 * @param appThreadsCpuSeconds   CPU time of every Java thread named after the application
 * @param changelogBytes         bytes the application's producers sent to its changelog topics
 * @param producerBatching       how its producer batched (requests, records per request, sizes), one line
 */
record AppFigures(double jitSeconds, Map<String, Double> cpuSeconds, double streamThreadCpuSeconds,
                  double appThreadsCpuSeconds, double changelogBytes, String producerBatching) {
}
