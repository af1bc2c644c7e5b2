package dev.shaper.docs;

import dev.shaper.ShaperConfig;
import dev.shaper.ShaperTopology;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.apache.kafka.streams.Topology;

/**
 * Writes {@code TOPOLOGY.md}: the shaper's processors, stores and topics and a Mermaid diagram of the flow, taken
 * from the code ({@link Topology#describe()}), so the documentation cannot drift from what runs. The settings are
 * in {@code docs/configuration.md}, which {@link ConfigurationDocs} writes from the same code.
 *
 * <p>Usage: {@code TopologyDocs path/to/TOPOLOGY.md}.
 */
public final class TopologyDocs {

    /** The command that regenerates this file and {@code docs/configuration.md}, as the stale-file tests tell it. */
    public static final String REGENERATE = "mvn -q -pl topology-docs -am -P regenerate-docs process-classes";

    private TopologyDocs() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: TopologyDocs path/to/TOPOLOGY.md");
            System.exit(2);
        }
        Files.writeString(Path.of(args[0]), generate(), StandardCharsets.UTF_8);
    }

    /** The full document. */
    public static String generate() {
        // The documented topology is the complete one: with admission, which exists when some key has an admission
        // limit. ShaperTopology.build admits from local buckets: generating docs must not need Redis.
        ShaperConfig config = new ShaperConfig(Map.of(ShaperConfig.ADMISSION_RATE_CONFIG, "1"));
        Topology topology = ShaperTopology.build(config, 1);
        return new DocumentWriter(topology.describe()).write();
    }
}
