package dev.shaper.bench;

import dev.shaper.ShaperConfig;
import dev.shaper.ShaperTopology;
import dev.shaper.internals.rules.RuleBook;
import java.util.List;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.Topology;

/**
 * The two applications under test. Both get their Kafka Streams settings from the same
 * {@link ShaperConfig#streamsProperties()}, so they differ only in their topology.
 */
enum BenchApp {

    /** The baseline: source to sink, byte[] in and out, no state, no processing. */
    PASS_THROUGH("pass-through", false) {
        @Override
        Topology topology(ShaperConfig config, int partitions) {
            Topology topology = new Topology();
            topology.addSource("source", new ByteArrayDeserializer(), new ByteArrayDeserializer(),
                    config.inputTopic());
            topology.addSink("sink", config.outputTopic(), new ByteArraySerializer(), new ByteArraySerializer(),
                    "source");
            return topology;
        }
    },

    /** The shaper's own topology, with the default rule of the scenario and no per-key rules. */
    SHAPER("shaper", true) {
        @Override
        Topology topology(ShaperConfig config, int partitions) {
            return ShaperTopology.build(config, new RuleBook(config.defaultShapingRule(), List.of()), partitions);
        }
    };

    private final String label;
    private final boolean shapes;

    BenchApp(String label, boolean shapes) {
        this.label = label;
        this.shapes = shapes;
    }

    String label() {
        return label;
    }

    /** Whether the application is the shaper (which has a rejected topic and shaping settings). */
    boolean shapes() {
        return shapes;
    }

    abstract Topology topology(ShaperConfig config, int partitions);
}
