package dev.shaper.docs;

import dev.shaper.ShaperConfig;
import dev.shaper.ShaperTopology;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionScheduler;
import dev.shaper.internals.rules.RuleBook;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.Topology;

/**
 * Writes {@code TOPOLOGY.md}: the shaper's processors, stores and topics, a Mermaid diagram of the flow, and
 * the configuration reference, all taken from the code ({@link Topology#describe()} and the
 * {@link org.apache.kafka.common.config.ConfigDef}), so the documentation cannot drift from what runs.
 *
 * <p>Usage: {@code TopologyDocs path/to/TOPOLOGY.md}.
 */
public final class TopologyDocs {

    /** The command that regenerates the file, as the stale-file test tells it. */
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
        // The documented topology is the complete one: with the admission stage, which exists when some key
        // has an admission limit. Local admission only: generating docs must not need Redis.
        ShaperConfig config = new ShaperConfig(Map.of(ShaperConfig.ADMISSION_RATE_CONFIG, "1"));
        RuleBook rules = new RuleBook(config.defaultShapingRule(), config.defaultAdmissionRule(), List.of());
        // Never started: it only has to exist for the topology to hold an admission stage.
        try (AdmissionController admission = new AdmissionController(null, AdmissionMode.BATCHED,
                Duration.ofSeconds(1), Duration.ofSeconds(1), () -> 1, AdmissionScheduler.daemonThread("docs"),
                System::nanoTime)) {
            Topology topology = ShaperTopology.build(config, rules, 1, admission);
            return new DocumentWriter(topology.describe(), ShaperConfig.configDef(), config).write();
        }
    }
}
