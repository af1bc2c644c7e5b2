package dev.shaper.docs;

import dev.shaper.ShaperConfig;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.streams.TopologyDescription;
import org.apache.kafka.streams.TopologyDescription.Node;

/** Renders a topology description as Markdown. */
final class DocumentWriter {

    private final TopologyDescription description;
    private final StringBuilder out = new StringBuilder();

    DocumentWriter(TopologyDescription description) {
        this.description = description;
    }

    String write() {
        line("# The shaper's topology");
        line();
        line("<!-- Generated from the code by the topology-docs module; do not edit. Regenerate with:");
        line("     " + TopologyDocs.REGENERATE + " -->");
        line();
        line("Generated from `ShaperTopology.build(...).describe()` with the default settings (topic names are"
                + " the defaults of `" + ShaperConfig.INPUT_TOPIC_CONFIG + "`, `" + ShaperConfig.OUTPUT_TOPIC_CONFIG
                + "` and `" + ShaperConfig.REJECTED_TOPIC_CONFIG + "`) and an admission limit (`"
                + ShaperConfig.ADMISSION_RATE_CONFIG + "` = 1). One processor takes each record through one pass:"
                + " the input checks, admission (when some key has an admission limit) and the key's leaky bucket,"
                + " which lets it go at once or queues it in the two stores until the punctuator releases it.");
        line();
        writeDiagram();
        writeNodes();
        writeConfig();
        return out.toString();
    }

    private void writeDiagram() {
        line("## Flow");
        line();
        line("```mermaid");
        line("flowchart LR");
        Set<String> declared = new LinkedHashSet<>();
        for (TopologyDescription.Subtopology sub : description.subtopologies()) {
            for (Node node : sorted(sub.nodes())) {
                if (node instanceof TopologyDescription.Source source) {
                    for (String topic : new TreeSet<>(source.topicSet())) {
                        declared.add("  " + id("topic", topic) + "[(" + topic + ")]");
                        declared.add("  " + id("topic", topic) + " --> " + id("node", node.name()));
                    }
                    declared.add("  " + id("node", node.name()) + "[/" + node.name() + "/]");
                } else if (node instanceof TopologyDescription.Processor processor) {
                    declared.add("  " + id("node", node.name()) + "[" + node.name() + "]");
                    for (String store : new TreeSet<>(processor.stores())) {
                        declared.add("  " + id("store", store) + "[(" + store + "<br/>RocksDB + changelog)]");
                        declared.add("  " + id("node", node.name()) + " <--> " + id("store", store));
                    }
                } else if (node instanceof TopologyDescription.Sink sink) {
                    declared.add("  " + id("node", node.name()) + "[\\" + node.name() + "\\]");
                    declared.add("  " + id("node", node.name()) + " --> " + id("topic", sink.topic()));
                    declared.add("  " + id("topic", sink.topic()) + "[(" + sink.topic() + ")]");
                }
                for (Node successor : sorted(node.successors())) {
                    declared.add("  " + id("node", node.name()) + " --> " + id("node", successor.name()));
                }
            }
        }
        declared.forEach(this::line);
        line("```");
        line();
    }

    private void writeNodes() {
        line("## Processors, stores and topics");
        line();
        line("| node | kind | reads | writes | stores | next |");
        line("| --- | --- | --- | --- | --- | --- |");
        for (TopologyDescription.Subtopology sub : description.subtopologies()) {
            for (Node node : sorted(sub.nodes())) {
                String kind = node instanceof TopologyDescription.Source ? "source"
                        : node instanceof TopologyDescription.Sink ? "sink" : "processor";
                String reads = node instanceof TopologyDescription.Source s ? code(new TreeSet<>(s.topicSet())) : "";
                String writes = node instanceof TopologyDescription.Sink s ? code(List.of(s.topic())) : "";
                String stores = node instanceof TopologyDescription.Processor p ? code(new TreeSet<>(p.stores())) : "";
                List<String> next = new ArrayList<>();
                sorted(node.successors()).forEach(n -> next.add(n.name()));
                line("| `" + node.name() + "` | " + kind + " | " + reads + " | " + writes + " | " + stores + " | "
                        + code(next) + " |");
            }
        }
        line();
        if (!description.globalStores().isEmpty()) {
            line("Global stores: " + description.globalStores());
            line();
        }
    }

    private void writeConfig() {
        line("## Configuration");
        line();
        line("Every setting, from the same code: [docs/configuration.md](../docs/configuration.md).");
        line();
    }

    private static String code(java.util.Collection<String> names) {
        List<String> quoted = new ArrayList<>();
        names.forEach(n -> quoted.add("`" + n + "`"));
        return String.join(", ", quoted);
    }

    private static List<Node> sorted(Set<Node> nodes) {
        List<Node> list = new ArrayList<>(nodes);
        list.sort(Comparator.comparing(Node::name));
        return list;
    }

    private static String id(String kind, String name) {
        return kind + "_" + name.replaceAll("[^A-Za-z0-9]", "_");
    }

    private void line(String text) {
        out.append(text).append('\n');
    }

    private void line() {
        out.append('\n');
    }
}
