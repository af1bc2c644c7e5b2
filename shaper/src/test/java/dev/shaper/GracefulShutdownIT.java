package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShapedOutputVerifier;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.VerificationReport;
import dev.shaper.testsupport.Workload;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The shaper as its users run it, {@code java -jar shaper.jar settings}: stopping it, and refusing bad settings. */
@Order(2) // among the slowest classes: started first in the parallel run
class GracefulShutdownIT {

    private static final Path LOG_DIR = Path.of("target", "graceful-shutdown-it");

    @Test
    @Timeout(180)
    void shouldCloseCleanlyOnSigtermAndLoseNothingQueued(@TempDir Path work) throws Exception {
        try (KafkaBroker broker = KafkaBroker.start()) {
            // Given: a shaper with records queued (3 keys x 150 records at 50/s per key: about 3 s of queue)
            broker.createTopics(2, "stop-in", "stop-out", "stop-rejected");
            List<RecordId> ids = Workload.interleaved(3, 0, 150);
            Workload.send(broker.bootstrapServers(), "stop-in", ids, 0);
            Path settings = settings(work, broker.bootstrapServers());
            Path log = LOG_DIR.resolve("shaper.log");
            Files.deleteIfExists(log);
            try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                    "stop-out", "stop-rejected");
                 ShaperProcess first = ShaperProcess.start("first", settings, log)) {
                collector.await("some output", Duration.ofSeconds(60), read -> read.size() >= 60);

                // When: it is asked to stop while most records are still queued
                long stopping = System.nanoTime();
                int exit = first.terminate(Duration.ofSeconds(60));
                long stoppedMs = (System.nanoTime() - stopping) / 1_000_000;

                // Then: it closed Kafka Streams cleanly, with the JVM's status for SIGTERM
                assertThat(exit).isEqualTo(143);
                String output = Files.readString(log, StandardCharsets.UTF_8);
                // And: its start was a few lines an operator reads, without Kafka's client settings or warnings
                // that contradict the effective settings
                List<String> start = output.lines().skip(1).takeWhile(line -> !line.contains("Stop requested"))
                        .toList();
                assertThat(start.stream().filter(line -> line.contains(" INFO "))).as("the start log (%s)", log)
                        .hasSizeBetween(3, 40)
                        .anyMatch(line -> line.contains("Effective settings") && line.contains("poll.ms=1,"))
                        .anyMatch(line -> line.contains("Topics: stop-in (2 partitions) -> stop-out"))
                        .anyMatch(line -> line.contains("Capacity: ")).anyMatch(line -> line.contains("Admission: "))
                        .anyMatch(line -> line.contains("-> RUNNING")).anyMatch(line -> line.contains("Ready: "));
                assertThat(start).as("the start log (%s)", log).noneMatch(line -> line.contains("Config values"))
                        .noneMatch(line -> line.contains("were supplied but are not used"))
                        .noneMatch(line -> line.contains("processing.exception.handler.global.enabled` to true"));
                // (Not Kafka's "-> NOT_RUNNING" state line: a daemon thread logs it, racing the JVM's exit.)
                assertThat(output).contains("Stop requested").contains("Kafka Streams closed cleanly");
                assertThat(stoppedMs).isLessThan(30_000);
                int atStop = collector.snapshot().size();
                assertThat(atStop).isLessThan(ids.size());

                // And: a restart finishes the queues, every record once and in order
                try (ShaperProcess second = ShaperProcess.start("second", settings, log)) {
                    collector.awaitAccountedFor(ids, Duration.ofSeconds(90));
                    VerificationReport report = ShapedOutputVerifier.verify(ids, collector.snapshot());
                    assertThat(report.isExactlyOnce()).as(report.summary()).isTrue();
                    assertThat(report.orderViolations()).isEmpty();
                    assertThat(report.rejectedCount()).isZero();
                }
            }
        }
    }

    @Test
    @Timeout(60)
    void shouldRefuseToStartWithExitCode2AndNameTheKeyWhenASettingIsBad(@TempDir Path work) throws Exception {
        Path settings = work.resolve("bad.properties");
        Files.writeString(settings, "bootstrap.servers=localhost:1\napplication.id=x\nshaper.shaping.rate=-5\n");
        Path log = LOG_DIR.resolve("bad-settings.log");
        Files.deleteIfExists(log);
        try (ShaperProcess shaper = ShaperProcess.start("bad", settings, log)) {
            assertThat(shaper.awaitExit(Duration.ofSeconds(30))).isEqualTo(2);
        }
        assertThat(Files.readString(log, StandardCharsets.UTF_8))
                .contains("configuration error: Invalid value -5.0 for configuration shaper.shaping.rate:"
                        + " expected a finite number > 0");
    }

    private static Path settings(Path work, String bootstrapServers) throws IOException {
        Properties p = new Properties();
        p.setProperty(StreamsConfig.APPLICATION_ID_CONFIG, "graceful-shutdown-it");
        p.setProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.setProperty(StreamsConfig.STATE_DIR_CONFIG, work.resolve("state").toAbsolutePath().toString());
        // Kafka Streams keeps its group membership on close; the restart gets the tasks once this expires.
        p.setProperty("session.timeout.ms", "6000");
        p.setProperty("heartbeat.interval.ms", "1000");
        p.setProperty(ShaperConfig.INPUT_TOPIC_CONFIG, "stop-in");
        p.setProperty(ShaperConfig.OUTPUT_TOPIC_CONFIG, "stop-out");
        p.setProperty(ShaperConfig.REJECTED_TOPIC_CONFIG, "stop-rejected");
        p.setProperty(ShaperConfig.SHAPING_RATE_CONFIG, "50");
        p.setProperty(ShaperConfig.SHAPING_TICK_MS_CONFIG, "10");
        p.setProperty(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, "true"); // rates are checked at release
        // A rule no key matches, faster than the default: the start picks poll.ms for it (1 ms; 5 for 50/s)
        Path rules = work.resolve("rules.yaml");
        Files.writeString(rules, "rules:\n  - prefix: never-\n    rate: 1000\n");
        p.setProperty(ShaperConfig.RULES_FILE_CONFIG, rules.toAbsolutePath().toString());
        Path file = work.resolve("shaper.properties");
        try (Writer w = Files.newBufferedWriter(file)) {
            p.store(w, "GracefulShutdownIT");
        }
        return file;
    }
}
