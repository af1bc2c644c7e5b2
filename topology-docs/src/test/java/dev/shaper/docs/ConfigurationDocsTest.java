package dev.shaper.docs;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.annotation.JsonProperty;
import dev.shaper.ShaperConfig;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

class ConfigurationDocsTest {

    /** The tests run in the module's directory. */
    private static final Path ROOT = Path.of("..");

    @Test
    void shouldMatchTheCommittedDocument() throws Exception {
        String generated = ConfigurationDocs.generate(ROOT);
        Path committed = ROOT.resolve(ConfigurationDocs.DOCUMENT);
        String text = Files.exists(committed) ? Files.readString(committed, StandardCharsets.UTF_8) : "";
        assertThat(text)
                .as("docs/configuration.md is out of date with the code; regenerate it with: "
                        + TopologyDocs.REGENERATE + " (from the repository root), then commit it")
                .isEqualTo(generated);
    }

    @Test
    void shouldDescribeEverySettingWithItsTypeDefaultAndEnvironmentVariable() throws Exception {
        String doc = ConfigurationDocs.generate(ROOT);

        ShaperConfig.configDef().configKeys().values().forEach(key -> {
            assertThat(doc).contains("### `" + key.name + "`", "[`" + key.name + "`](#", key.documentation);
            assertThat(doc).contains("`" + key.name.toUpperCase(java.util.Locale.ROOT).replace('.', '_') + "`");
        });
        assertThat(doc).contains("| `shaper.shaping.rate` |", "| double | `100` | (0, ...) | high | `SHAPER_SHAPING_RATE` |");
    }

    @Test
    void shouldDocumentExactlyTheFieldsTheRulesFileReads() throws Exception {
        // The rules file's reader names its fields with @JsonProperty on the components of RulesFile.RuleSpec.
        Class<?> spec = Class.forName("dev.shaper.internals.rules.RulesFile$RuleSpec");
        List<String> fields = new ArrayList<>();
        for (RecordComponent component : spec.getRecordComponents()) {
            // @JsonProperty targets fields, not record components: Java puts it on the component's field.
            fields.add(spec.getDeclaredField(component.getName()).getAnnotation(JsonProperty.class).value());
        }

        assertThat(ConfigurationWriter.RULE_FIELDS.keySet())
                .as("the rules file's fields in ConfigurationWriter.RULE_FIELDS").containsExactlyElementsOf(fields);
        String doc = ConfigurationDocs.generate(ROOT);
        fields.forEach(field -> assertThat(doc).contains("| `" + field + "` |"));
        assertThat(doc).contains(Files.readString(ROOT.resolve(ConfigurationDocs.EXAMPLE_RULES)));
    }

    @Test
    void shouldListEveryKafkaStreamsDefaultTheShaperChangesWithItsReason() throws Exception {
        String doc = ConfigurationDocs.generate(ROOT);
        String decision = Files.readString(ROOT.resolve("docs/decisions/0001-kafka-streams-defaults.md"));
        Set<String> keys = new HashSet<>(ConfigurationWriter.shaperDefaults(Map.of()).keySet());
        keys.addAll(ConfigurationWriter.shaperDefaults(Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
                StreamsConfig.AT_LEAST_ONCE)).keySet());

        assertThat(keys).contains(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, "producer.linger.ms", "poll.ms");
        for (String key : keys) {
            assertThat(doc).contains("| `" + key + "` | ");
            assertThat(decision).as("decision 0001 says why the shaper sets " + key).contains("`" + key + "`");
        }
        assertThat(doc).contains("| `processing.guarantee` | `exactly_once_v2` | - | `at_least_once` |",
                "| `producer.linger.ms` | `10` | `0` |");
    }

    @Test
    void shouldLinkOnlyToHeadingsThatExist() throws Exception {
        String doc = ConfigurationDocs.generate(ROOT);
        Set<String> anchors = new HashSet<>();
        for (String line : doc.split("\n")) {
            if (line.startsWith("#")) {
                anchors.add(ConfigurationWriter.anchor(line.replaceFirst("^#+ ", "")));
            }
        }
        Matcher link = Pattern.compile("\\]\\(#([^)]+)\\)").matcher(doc);
        while (link.find()) {
            assertThat(anchors).as("the heading that #" + link.group(1) + " links to").contains(link.group(1));
        }
    }
}
