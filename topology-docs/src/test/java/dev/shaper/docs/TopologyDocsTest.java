package dev.shaper.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperTopology;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class TopologyDocsTest {

    private static final Path COMMITTED = Path.of("TOPOLOGY.md");

    @Test
    void shouldMatchTheCommittedDocument() throws Exception {
        String generated = TopologyDocs.generate();
        String committed = Files.exists(COMMITTED) ? Files.readString(COMMITTED, StandardCharsets.UTF_8) : "";
        assertThat(committed)
                .as("topology-docs/TOPOLOGY.md is out of date with the code; regenerate it with: "
                        + TopologyDocs.REGENERATE + " (from the repository root), then commit it")
                .isEqualTo(generated);
    }

    @Test
    void shouldDescribeEveryNodeStoreAndTopic() {
        String doc = TopologyDocs.generate();
        assertThat(doc).contains("```mermaid", ShaperTopology.SOURCE, ShaperTopology.PROCESSOR,
                ShaperTopology.SHAPED_SINK, ShaperTopology.REJECTED_SINK,
                ShaperTopology.SCHEDULE_STORE, ShaperTopology.KEY_STATE_STORE,
                "shaper-input", "shaper-shaped", "shaper-rejected", "../docs/configuration.md");
    }
}
