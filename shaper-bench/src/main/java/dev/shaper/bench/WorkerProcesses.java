package dev.shaper.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Runs each application type in a JVM of its own ({@link AppWorker}), started at its first measurement and kept
 * for the whole benchmark, so that it warms up on its own code and stays warm across the interleaved runs. The
 * broker, the input loader and the output counter stay in the benchmark's JVM.
 */
final class WorkerProcesses implements AppRunner {

    private static final long ANSWER_TIMEOUT_S = 300;
    /** Put in a worker's answer queue when its output ends (it exited or died). */
    private static final String END_OF_OUTPUT = "<end of output>";

    private final ObjectMapper json = new ObjectMapper();
    private final List<String> jvmOptions;
    private final Map<BenchApp, Worker> workers = new EnumMap<>(BenchApp.class);
    private Worker running;

    /** @param jvmOptions options of every worker JVM (heap, collector, logging) */
    WorkerProcesses(List<String> jvmOptions) {
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    @Override
    public long start(BenchApp app, Map<String, String> settings, int partitions) throws Exception {
        Worker worker = workers.get(app);
        if (worker == null) {
            worker = new Worker(app);
            workers.put(app, worker);
        }
        ObjectNode command = json.createObjectNode().put("op", "start").put("app", app.label())
                .put("partitions", partitions);
        ObjectNode values = command.putObject("settings");
        settings.forEach(values::put);
        running = worker; // before the call: a start that fails half-way must still be stopped
        return worker.call(command).get("startNanos").asLong();
    }

    @Override
    public String failure() throws Exception {
        JsonNode failure = running.call(json.createObjectNode().put("op", "status")).get("failure");
        return failure == null || failure.isNull() ? null : failure.asText();
    }

    @Override
    public String state() throws Exception {
        return running.call(json.createObjectNode().put("op", "status")).path("state").asText();
    }

    @Override
    public AppFigures figures() throws Exception {
        return json.treeToValue(running.call(json.createObjectNode().put("op", "figures")).get("figures"),
                AppFigures.class);
    }

    /**
     * Stops the running app. A worker that cannot (its app did not close, the JVM died or stopped answering) is
     * killed and forgotten, so that no app of an earlier measurement runs on beside a later one; the next
     * measurement of its type starts a fresh JVM.
     */
    @Override
    public void stop() throws Exception {
        Worker stopping = running;
        running = null;
        if (stopping == null) {
            return;
        }
        try {
            stopping.call(json.createObjectNode().put("op", "stop"));
        } catch (Exception e) {
            workers.remove(stopping.app, stopping);
            stopping.kill();
            throw e;
        }
    }

    @Override
    public String describe() {
        return "apps: each app type in a JVM of its own (--app.jvm=worker), options " + jvmOptions
                + "; the broker, the loader and the output counter in the benchmark's JVM";
    }

    @Override
    public void close() {
        workers.values().forEach(Worker::close);
        workers.clear();
    }

    /** One worker JVM and the pipes to it. */
    private final class Worker {
        private final BenchApp app;
        private final Process process;
        private final Writer commands;
        private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        private long lastCommand;

        Worker(BenchApp app) throws IOException {
            this.app = app;
            List<String> command = new ArrayList<>();
            command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            command.addAll(jvmOptions);
            command.add("-cp");
            command.add(System.getProperty("java.class.path"));
            command.add(AppWorker.class.getName());
            this.process = new ProcessBuilder(command).redirectErrorStream(true).start();
            this.commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
            Thread reader = new Thread(this::readOutput, "bench-worker-" + app.label());
            reader.setDaemon(true);
            reader.start();
            System.out.println("started a JVM for " + app.label() + " (pid " + process.pid() + ")");
        }

        /**
         * Sends {@code command} and waits for its answer, matched by id: an answer that arrives after its
         * command timed out is skipped, not taken for the next command's.
         */
        JsonNode call(ObjectNode command) throws Exception {
            long id = ++lastCommand;
            command.put("id", id);
            commands.write(json.writeValueAsString(command) + "\n");
            commands.flush();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(ANSWER_TIMEOUT_S);
            while (true) {
                String line = answers.poll(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
                if (line != null && line.equals(END_OF_OUTPUT)) {
                    answers.add(END_OF_OUTPUT); // for the next caller too
                }
                if (line == null || line.equals(END_OF_OUTPUT)) {
                    throw new IllegalStateException("the " + app.label() + " JVM did not answer " + command
                            + (line == null ? " in " + ANSWER_TIMEOUT_S + " s" : ": its output ended"
                            + (process.isAlive() ? "" : ", exit code " + process.waitFor())));
                }
                JsonNode answer = json.readTree(line);
                if (answer.path("id").asLong() != id) {
                    continue; // the late answer to a command that timed out
                }
                if (answer.hasNonNull("error")) {
                    throw new IllegalStateException("the " + app.label() + " JVM failed " + command.get("op")
                            + ": " + answer.get("error").asText());
                }
                return answer;
            }
        }

        void kill() {
            process.destroyForcibly();
        }

        private void readOutput() {
            try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8))) {
                String line;
                while ((line = out.readLine()) != null) {
                    // The JVM itself writes to the same pipe (-XX:+PrintCompilation, say), so an answer may
                    // follow a part line of its; one write of a line is atomic, so the answer is whole.
                    int answer = line.indexOf(AppWorker.ANSWER);
                    if (answer > 0) {
                        System.out.println("[" + app.label() + " JVM] " + line.substring(0, answer));
                    }
                    if (answer >= 0) {
                        answers.add(line.substring(answer + AppWorker.ANSWER.length()));
                    } else {
                        System.out.println("[" + app.label() + " JVM] " + line);
                    }
                }
            } catch (IOException e) {
                System.out.println("[" + app.label() + " JVM] output ended: " + e);
            } finally {
                answers.add(END_OF_OUTPUT); // a caller waiting for an answer learns at once that none will come
            }
        }

        void close() {
            try {
                commands.close(); // end of input: the worker stops its app and exits
                if (!process.waitFor(90, TimeUnit.SECONDS)) {
                    process.destroyForcibly();
                }
            } catch (IOException | InterruptedException e) {
                process.destroyForcibly();
            }
        }
    }
}
