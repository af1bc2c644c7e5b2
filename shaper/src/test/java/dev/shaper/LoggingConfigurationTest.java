package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.status.Status;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/**
 * The shaper's own logging configuration ({@code src/main/resources/logback.xml}, the one in the jar), loaded into
 * a logger context of the test's: text lines by default, one JSON object per line with {@code LOG_FORMAT=json}.
 */
class LoggingConfigurationTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void withLogFormatJsonEachEventIsOneJsonObjectWithItsLevelLoggerMessageAndStackTrace() throws Exception {
        String output = logWith("json", context -> {
            context.getLogger("dev.shaper.Example").info("Effective settings: {}", "a=1, b=[hidden]");
            context.getLogger("dev.shaper.Example").warn("it failed", new IllegalStateException("the cause"));
            context.getLogger("org.apache.kafka.clients.NetworkClient").info("below WARN: not logged");
        });

        List<String> lines = output.lines().toList();
        assertThat(lines).hasSize(2);
        JsonNode info = JSON.readTree(lines.get(0));
        assertThat(info.get("level").asText()).isEqualTo("INFO");
        assertThat(info.get("loggerName").asText()).isEqualTo("dev.shaper.Example");
        assertThat(info.get("formattedMessage").asText()).isEqualTo("Effective settings: a=1, b=[hidden]");
        assertThat(info.get("threadName").asText()).isEqualTo(Thread.currentThread().getName());
        assertThat(info.get("timestamp").asLong()).isCloseTo(System.currentTimeMillis(),
                org.assertj.core.data.Offset.offset(60_000L));
        // The message's template and arguments are left out: the formatted message says it once.
        assertThat(info.has("message")).isFalse();
        assertThat(info.has("arguments")).isFalse();
        JsonNode warn = JSON.readTree(lines.get(1));
        assertThat(warn.get("level").asText()).isEqualTo("WARN");
        assertThat(warn.get("throwable").get("className").asText()).isEqualTo("java.lang.IllegalStateException");
        assertThat(warn.get("throwable").get("message").asText()).isEqualTo("the cause");
    }

    @Test
    void byDefaultEachEventIsOneTextLine() throws Exception {
        String output = logWith(null, context ->
                context.getLogger("dev.shaper.Example").info("Starting shaper: {} -> {}", "in", "out"));

        assertThat(output.lines().toList()).singleElement().asString()
                .matches("\\d\\d:\\d\\d:\\d\\d\\.\\d{3} INFO  \\[.+] dev\\.shaper\\.Example - Starting shaper: in -> out");
    }

    @Test
    void theOnlyFormatsAreTextAndJson() {
        assertThat(ShaperApplication.logFormatError(null)).isNull();
        assertThat(ShaperApplication.logFormatError("text")).isNull();
        assertThat(ShaperApplication.logFormatError("json")).isNull();
        assertThat(ShaperApplication.logFormatError("JSON")).contains("LOG_FORMAT", "JSON", "text", "json");
        assertThat(ShaperApplication.logFormatError("logfmt")).contains("logfmt");
    }

    @Test
    void anUnknownLogFormatStopsTheStartAsASettingsError() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = ShaperApplication.run(new String[] {"settings.properties"}, java.util.Map.of("LOG_FORMAT", "xml"),
                new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));

        assertThat(status).isEqualTo(ShaperApplication.EXIT_SETTINGS);
        assertThat(err.toString(StandardCharsets.UTF_8)).contains("LOG_FORMAT", "xml", "text or json");
    }

    /**
     * Configures a fresh logger context from the jar's logback.xml with {@code LOG_FORMAT} set to {@code format} (as
     * logback sees a system property or an environment variable), runs {@code logging} and returns what the console
     * appender wrote.
     */
    private static String logWith(String format, Consumer<LoggerContext> logging) throws Exception {
        URL config = Path.of("src/main/resources/logback.xml").toUri().toURL();
        LoggerContext context = new LoggerContext();
        context.setMDCAdapter(new LogbackMDCAdapter()); // as logback's SLF4J provider gives its own context
        if (format != null) {
            context.putProperty("LOG_FORMAT", format);
        }
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        PrintStream stdout = System.out;
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            JoranConfigurator configurator = new JoranConfigurator();
            configurator.setContext(context);
            configurator.doConfigure(config);
            assertThat(context.getStatusManager().getCopyOfStatusList()).as("logback's own errors and warnings")
                    .allMatch(s -> s.getLevel() == Status.INFO, "INFO");
            logging.accept(context);
            assertThat(context.getStatusManager().getCopyOfStatusList()).as("logback's errors while logging")
                    .allMatch(s -> s.getLevel() == Status.INFO, "INFO");
        } finally {
            context.stop();
            System.setOut(stdout);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
