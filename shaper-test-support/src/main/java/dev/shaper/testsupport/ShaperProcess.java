package dev.shaper.testsupport;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The shaper as a separate JVM, started from the fat jar the way it is deployed
 * ({@code java -cp shaper.jar dev.shaper.ShaperApplication settings.properties}), so that a test can kill
 * it outright. Its stdout and stderr are appended to a log file for diagnosis. Environment variables that
 * the shaper would read as overrides ({@code SHAPER_*}, {@code STREAMS_*}) are not passed on, so the
 * settings file alone decides, unless the test gives some of its own.
 */
public final class ShaperProcess implements AutoCloseable {

    /** The fat jar; {@code -Dshaper.jar=...} overrides the default {@code target/shaper.jar} of the module. */
    public static Path jar() {
        Path jar = Path.of(System.getProperty("shaper.jar", "target/shaper.jar")).toAbsolutePath();
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " does not exist; it is built in the package phase, so run this"
                    + " test with 'mvn verify' (failsafe), or pass -Dshaper.jar=path/to/shaper.jar");
        }
        return jar;
    }

    private final Process process;
    private final String name;

    private ShaperProcess(Process process, String name) {
        this.process = process;
        this.name = name;
    }

    /**
     * The JVM options every shaper process starts with, before a test's own: the system property
     * {@code shaper.test.child.jvm.options} (space-separated; the build sets it for the integration tests), or none.
     */
    private static List<String> childJvmOptions() {
        String options = System.getProperty("shaper.test.child.jvm.options", "").trim();
        return options.isEmpty() ? List.of() : List.of(options.split("\\s+"));
    }

    /**
     * Starts the shaper with {@code settingsFile}, appending its output to {@code logFile} after a line that
     * names this start.
     */
    public static ShaperProcess start(String name, Path settingsFile, Path logFile) throws IOException {
        // Any free port for the HTTP server: a fixed one could be taken on the test machine.
        return start(name, settingsFile, logFile, 0);
    }

    /**
     * {@link #start(String, Path, Path)} with the HTTP server on {@code httpPort} (0: any free port, which the
     * test cannot learn; -1: none), for tests that ask the instance's {@code /health} or {@code /metrics}.
     */
    public static ShaperProcess start(String name, Path settingsFile, Path logFile, int httpPort)
            throws IOException {
        return start(name, settingsFile, logFile, List.of("-Xmx256m"), httpPort);
    }

    /**
     * Starts the shaper with {@code settingsFile} in a JVM with {@code jvmOptions} (e.g. a heap size), its HTTP
     * server on {@code httpPort} (0 for any free port, which the caller then cannot ask), appending its output to
     * {@code logFile} after a line that names this start.
     */
    public static ShaperProcess start(String name, Path settingsFile, Path logFile, List<String> jvmOptions,
                                      int httpPort) throws IOException {
        return start(name, settingsFile, logFile, jvmOptions, httpPort, java.util.Map.of());
    }

    /**
     * {@link #start(String, Path, Path, List, int)} with these environment variables set as well, e.g. settings as
     * {@code SHAPER_*} and {@code STREAMS_*} variables, the way a Kubernetes pod passes secrets.
     */
    public static ShaperProcess start(String name, Path settingsFile, Path logFile, List<String> jvmOptions,
                                      int httpPort, java.util.Map<String, String> environment) throws IOException {
        Files.createDirectories(logFile.toAbsolutePath().getParent());
        Files.writeString(logFile, "===== " + Instant.now() + " starting shaper process '" + name + "' "
                        + jvmOptions + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        List<String> command = new java.util.ArrayList<>();
        command.add(java.toString());
        command.addAll(childJvmOptions());
        command.addAll(jvmOptions);
        command.addAll(List.of("-cp", jar().toString(), "dev.shaper.ShaperApplication",
                settingsFile.toAbsolutePath().toString()));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().keySet().removeIf(k -> k.startsWith("SHAPER_") || k.startsWith("STREAMS_"));
        builder.environment().put("SHAPER_HTTP_PORT", Integer.toString(httpPort));
        builder.environment().putAll(environment);
        builder.redirectErrorStream(true);
        builder.redirectOutput(ProcessBuilder.Redirect.appendTo(logFile.toFile()));
        return new ShaperProcess(builder.start(), name);
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    public long pid() {
        return process.pid();
    }

    /** The exit code, or null while it runs. */
    public Integer exitCode() {
        return process.isAlive() ? null : process.exitValue();
    }

    /**
     * Kills the process without warning (SIGKILL on Linux: no shutdown hook, no clean close of Kafka Streams)
     * and waits until it is gone.
     */
    public void kill() throws InterruptedException {
        process.destroyForcibly();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("shaper process '" + name + "' (pid " + pid()
                    + ") still alive 30 s after SIGKILL");
        }
    }

    /**
     * Asks the process to stop (SIGTERM on Linux: the JVM runs its shutdown hooks, so the shaper closes Kafka
     * Streams cleanly) and waits for it to exit.
     *
     * @return the exit code
     */
    public int terminate(Duration timeout) throws InterruptedException {
        process.destroy();
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("shaper process '" + name + "' (pid " + pid() + ") still alive "
                    + timeout + " after SIGTERM");
        }
        return process.exitValue();
    }

    /** Waits for the process to end on its own and returns its exit code. */
    public int awaitExit(Duration timeout) throws InterruptedException {
        if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
            throw new IllegalStateException("shaper process '" + name + "' (pid " + pid() + ") still running after "
                    + timeout);
        }
        return process.exitValue();
    }

    /** Kills the process if it still runs. */
    @Override
    public void close() {
        if (process.isAlive()) {
            try {
                kill();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                process.destroyForcibly();
            }
        }
    }

    @Override
    public String toString() {
        return "shaper process '" + name + "' (pid " + pid() + (isAlive() ? ", running)" : ", exited " + exitCode()
                + ")");
    }
}
