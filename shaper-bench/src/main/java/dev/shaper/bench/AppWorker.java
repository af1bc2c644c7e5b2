package dev.shaper.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A JVM that runs the benchmark's measured applications of one type, one after the other, on command of the
 * benchmark ({@link WorkerProcesses}): so that an application's compiled code is not shaped by the broker's, the
 * output counter's or another application's (the JIT recompiled broker and control-plane code in every
 * measurement of the shared JVM, and one app's classes made another's call sites megamorphic), and so that its
 * heap and its collector serve it alone, as in production.
 *
 * <p>Protocol, one JSON object per line: commands on standard input, each with an {@code id} and an
 * {@code op}: {@code start} (answers {@code startNanos}), {@code status} ({@code failure}, null while the app
 * runs, and its Kafka Streams {@code state}), {@code figures} ({@link AppFigures}), {@code stop}; the answer,
 * with the command's {@code id} (and an {@code error} if it failed), on standard output after the marker
 * {@link #ANSWER}. Anything else the JVM prints (logs) goes through unchanged. End of input stops the app and
 * ends the worker.
 */
public final class AppWorker {

    /** Marks a line of standard output as an answer to a command. */
    static final String ANSWER = "@@worker ";

    private AppWorker() {
    }

    public static void main(String[] args) throws Exception {
        ObjectMapper json = new ObjectMapper();
        PrintStream out = new PrintStream(System.out, true, StandardCharsets.UTF_8);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        AppRunner.InProcess runner = new AppRunner.InProcess();
        String line;
        while ((line = in.readLine()) != null) {
            JsonNode command = json.readTree(line);
            ObjectNode answer = json.createObjectNode();
            try {
                switch (command.path("op").asText()) {
                    case "start" -> {
                        Map<String, String> settings = new LinkedHashMap<>();
                        command.get("settings").fields().forEachRemaining(e -> settings.put(e.getKey(),
                                e.getValue().asText()));
                        answer.put("startNanos", runner.start(BenchApp.byLabel(command.get("app").asText()),
                                settings, command.get("partitions").asInt()));
                    }
                    case "status" -> {
                        answer.put("failure", runner.failure());
                        answer.put("state", runner.state());
                    }
                    case "figures" -> answer.set("figures", json.valueToTree(runner.figures()));
                    case "stop" -> runner.stop();
                    default -> throw new IllegalArgumentException("unknown command " + line);
                }
            } catch (Exception e) {
                answer.put("error", e.toString());
            }
            answer.put("id", command.path("id").asLong());
            out.println(ANSWER + json.writeValueAsString(answer));
        }
        try {
            runner.stop();
        } finally {
            System.exit(0); // Kafka's non-daemon threads of an app that would not close must not keep it alive
        }
    }
}
