package dev.shaper.testsupport;

import dev.shaper.ShaperConfig;
import java.io.IOException;
import java.io.Writer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The settings file of a shaper that a test runs as a child JVM ({@link ShaperProcess}) to check what a crash, a
 * failover or a broker restart does to queued records: exactly-once, 100 ms commits, 1 ms idle polls (below the
 * tick, so punctuations are not delayed), queues that reject nothing, and {@code shaper.released.ms} on every
 * record, since rates are checked at release.
 */
public final class ChildShaperSettings {

    private ChildShaperSettings() {
    }

    /**
     * @param topicPrefix the topics are {@code <prefix>-in}, {@code <prefix>-out} and {@code <prefix>-rejected}
     * @param rate        each key's release rate, per second
     */
    public static Properties queueing(String applicationId, String bootstrapServers, Path stateDir,
                                      String topicPrefix, int rate, long tickMs) {
        Properties p = new Properties();
        p.setProperty(StreamsConfig.APPLICATION_ID_CONFIG, applicationId);
        p.setProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        p.setProperty(StreamsConfig.STATE_DIR_CONFIG, stateDir.toAbsolutePath().toString());
        p.setProperty(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        p.setProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
        p.setProperty(StreamsConfig.POLL_MS_CONFIG, "1");
        p.setProperty(ShaperConfig.INPUT_TOPIC_CONFIG, topicPrefix + "-in");
        p.setProperty(ShaperConfig.OUTPUT_TOPIC_CONFIG, topicPrefix + "-out");
        p.setProperty(ShaperConfig.REJECTED_TOPIC_CONFIG, topicPrefix + "-rejected");
        p.setProperty(ShaperConfig.SHAPING_RATE_CONFIG, Integer.toString(rate));
        p.setProperty(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, "100000");
        p.setProperty(ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG, "3600000");
        p.setProperty(ShaperConfig.SHAPING_TICK_MS_CONFIG, Long.toString(tickMs));
        p.setProperty(ShaperConfig.OUTPUT_RELEASED_HEADER_CONFIG, "true");
        return p;
    }

    /** Writes {@code settings} to {@code file} and returns it. */
    public static Path write(Properties settings, Path file, String comment) throws IOException {
        try (Writer w = Files.newBufferedWriter(file)) {
            settings.store(w, comment);
        }
        return file;
    }
}
