package dev.shaper.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.SharedKafkaBroker;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaper's commands as a user runs them, {@code java -jar shaper.jar ...} in a process of their own: the answer
 * alone on standard output, diagnostics on standard error, and a cluster that does not answer said in one line
 * within seconds.
 */
@Timeout(180)
class CommandLineIT {

    private static final ObjectMapper JSON = new ObjectMapper();

    @RegisterExtension
    static final SharedKafkaBroker broker = new SharedKafkaBroker();

    @TempDir
    Path directory;

    /** What a command printed and how it ended. */
    private record Run(int exitCode, String out, String err, long elapsedMs) {
        List<String> errLines() {
            return err.lines().filter(line -> !line.isBlank()).toList();
        }
    }

    private Run run(String... args) throws Exception {
        return start(args).finish();
    }

    /** A command started, to be finished: those that wait for a broker run side by side. */
    private record Started(Process process, Path out, Path err, long startNanos) {
        Run finish() throws Exception {
            assertThat(process.waitFor(120, TimeUnit.SECONDS)).as("the command ended").isTrue();
            long elapsedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - startNanos);
            return new Run(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8),
                    Files.readString(err, StandardCharsets.UTF_8), elapsedMs);
        }
    }

    private Started start(String... args) throws IOException {
        Path out = Files.createTempFile(directory, "out", ".txt");
        Path err = Files.createTempFile(directory, "err", ".txt");
        List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java")
                .toString(), "-jar", ShaperProcess.jar().toString()));
        command.addAll(List.of(args));
        ProcessBuilder builder = new ProcessBuilder(command);
        builder.environment().keySet().removeIf(name -> name.startsWith("SHAPER_") || name.startsWith("STREAMS_"));
        builder.redirectOutput(out.toFile()).redirectError(err.toFile());
        long startNanos = System.nanoTime();
        return new Started(builder.start(), out, err, startNanos);
    }

    private static int closedPort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    private Path settings(String bootstrap, String prefix) throws IOException {
        Path file = directory.resolve(prefix + ".properties");
        Files.writeString(file, String.join("\n",
                "application.id=" + prefix + "-app",
                "bootstrap.servers=" + bootstrap,
                "state.dir=" + directory.resolve("state"),
                "shaper.input.topic=" + prefix + "-input",
                "shaper.output.topic=" + prefix + "-shaped",
                "shaper.rejected.topic=" + prefix + "-rejected",
                "shaper.rules.topic=" + prefix + "-rules",
                "shaper.shaping.rate=10", ""));
        return file;
    }

    @Test
    void shouldSayInOneLineWithinTenSecondsThatNoBrokerAnswers() throws Exception {
        String address = "127.0.0.1:" + closedPort();

        Started listing = start("rules", "list", "--bootstrap-servers", address);
        Started creating = start("topics", "create", settings(address, "nobroker").toString());
        Started starting = start(settings(address, "nobroker").toString());
        Run list = listing.finish();
        Run create = creating.finish();
        Run start = starting.finish();

        for (Run command : List.of(list, create)) {
            assertThat(command.exitCode()).isEqualTo(CommandLines.EXIT_KAFKA);
            assertThat(command.out()).isEmpty();
            assertThat(command.errLines()).singleElement().asString()
                    .contains("no broker answers at " + address + " within 10 s");
        }
        assertThat(start.exitCode()).isEqualTo(CommandLines.EXIT_KAFKA);
        assertThat(start.errLines()).singleElement().asString()
                .contains("no broker answers at " + address + " within 10 s");
        for (Run command : List.of(list, create, start)) {
            // 10 s of waiting, and a JVM's start (three at once, on a machine the suite keeps busy)
            assertThat(command.elapsedMs()).isLessThan(20_000);
        }
    }

    @Test
    void shouldCreateTheTopicsOnceWithTheirDocumentedSettingsAndPrintOnlyTheAnswer() throws Exception {
        Path settings = settings(broker.bootstrapServers(), "created");

        Run first = run("topics", "create", settings.toString(), "--partitions", "4", "--output", "json");
        Run again = run("topics", "create", settings.toString(), "--partitions", "4", "--output", "json");

        assertThat(first.exitCode()).as(first.err()).isZero();
        assertThat(first.err()).isEmpty();
        JsonNode created = JSON.readTree(first.out());
        assertThat(created).extracting(t -> t.get("topic").asText() + " " + t.get("state").asText() + " "
                + t.get("partitions").asInt()).containsExactly("created-input created 4", "created-shaped created 4",
                "created-rejected created 3", "created-rules created 1");
        assertThat(again.exitCode()).as(again.err()).isZero();
        assertThat(JSON.readTree(again.out())).extracting(t -> t.get("state").asText())
                .containsOnly("exists").hasSize(4);
        Map<ConfigResource, Config> configs = broker.admin().describeConfigs(List.of(
                new ConfigResource(ConfigResource.Type.TOPIC, "created-shaped"),
                new ConfigResource(ConfigResource.Type.TOPIC, "created-rejected"),
                new ConfigResource(ConfigResource.Type.TOPIC, "created-rules"))).all().get(30, TimeUnit.SECONDS);
        assertThat(configs.get(new ConfigResource(ConfigResource.Type.TOPIC, "created-shaped"))
                .get("message.timestamp.type").value()).isEqualTo("LogAppendTime");
        Config rejected = configs.get(new ConfigResource(ConfigResource.Type.TOPIC, "created-rejected"));
        assertThat(rejected.get("cleanup.policy").value()).isEqualTo("delete");
        assertThat(rejected.get("retention.ms").value()).isEqualTo(TopicPlan.WEEK_MS);
        assertThat(configs.get(new ConfigResource(ConfigResource.Type.TOPIC, "created-rules"))
                .get("cleanup.policy").value()).isEqualTo("compact");
    }

    @Test
    void shouldRefuseTopicsAStartWouldRefuseAndSaySo() throws Exception {
        broker.createTopics(2, Map.of("cleanup.policy", "compact"), "refused-rejected");

        Run create = run("topics", "create", settings(broker.bootstrapServers(), "refused").toString());

        assertThat(create.exitCode()).isEqualTo(CommandLines.EXIT_KAFKA);
        assertThat(create.out()).contains("refused-input", "created");
        assertThat(create.errLines()).singleElement().asString()
                .startsWith("topics: a shaper would not start on these topics: ").contains("refused-rejected");
    }

    @Test
    void shouldListTheRulesAsJsonOnStandardOutputWithTheirFieldsInOneOrder() throws Exception {
        broker.createTopics(1, Map.of("cleanup.policy", "compact"), "listed-rules");
        String bootstrap = broker.bootstrapServers();
        assertThat(run("rules", "put", "b", "{\"rate\": 5, \"exact\": \"tenant-b\"}", "--order", "2",
                "--bootstrap-servers", bootstrap, "--topic", "listed-rules").exitCode()).isZero();
        assertThat(run("rules", "put", "a", "{\"exact\": \"tenant-a\", \"rate\": 5}", "--order", "1",
                "--bootstrap-servers", bootstrap, "--topic", "listed-rules").exitCode()).isZero();

        Run json = run("rules", "list", "--output", "json", "--bootstrap-servers", bootstrap, "--topic",
                "listed-rules");
        Run table = run("rules", "list", "--bootstrap-servers", bootstrap, "--topic", "listed-rules");

        assertThat(json.exitCode()).as(json.err()).isZero();
        assertThat(json.err()).isEmpty();
        assertThat(JSON.readTree(json.out()).toString()).isEqualTo("[{\"order\":1,\"id\":\"a\",\"rule\":"
                + "{\"exact\":\"tenant-a\",\"rate\":5}},{\"order\":2,\"id\":\"b\",\"rule\":"
                + "{\"exact\":\"tenant-b\",\"rate\":5}}]");
        assertThat(table.out().lines().toList()).hasSize(3).last().asString()
                .endsWith("{\"exact\":\"tenant-b\",\"rate\":5}");
    }
}
