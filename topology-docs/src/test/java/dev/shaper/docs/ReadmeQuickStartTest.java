package dev.shaper.docs;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperConfig;
import java.io.StringReader;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.TopicConfig;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * The README's quick start holds together: its settings file is accepted as the shaper accepts a file, its
 * {@code kafka-topics.sh} commands create the three topics the settings name, with topic settings Kafka knows and
 * that the shaper's start-up checks accept. (The commands themselves run against a broker in producer-demo's
 * {@code QuickStartIT}.)
 */
class ReadmeQuickStartTest {

    private static final Path README = Path.of("..", "README.md");

    @Test
    void shouldAcceptTheSettingsFile() throws Exception {
        Map<String, String> settings = settings();

        ShaperConfig config = new ShaperConfig(settings);
        new StreamsConfig(config.streamsProperties()); // Kafka Streams' own checks, as at start

        assertThat(settings).containsKeys(StreamsConfig.APPLICATION_ID_CONFIG, StreamsConfig.BOOTSTRAP_SERVERS_CONFIG);
        assertThat(config.totalRate()).isPositive();
    }

    @Test
    void shouldCreateTheThreeTopicsTheSettingsNameWithSettingsKafkaKnows() throws Exception {
        ShaperConfig config = new ShaperConfig(settings());
        Map<String, Map<String, String>> topics = topicCommands(readme());

        assertThat(topics).containsOnlyKeys(config.inputTopic(), config.outputTopic(), config.rejectedTopic());
        Set<String> known = topicConfigNames();
        topics.values().forEach(configs -> assertThat(known).containsAll(configs.keySet()));
        // The shaper refuses a compacted rejected topic, and the output topic takes any timestamp under LogAppendTime.
        assertThat(topics.get(config.rejectedTopic())).containsEntry(TopicConfig.CLEANUP_POLICY_CONFIG,
                TopicConfig.CLEANUP_POLICY_DELETE);
        assertThat(topics.get(config.outputTopic())).containsEntry(TopicConfig.MESSAGE_TIMESTAMP_TYPE_CONFIG,
                "LogAppendTime");
    }

    /** The README's {@code properties} block, as the shaper's settings. */
    static Map<String, String> settings() throws Exception {
        Properties props = new Properties();
        props.load(new StringReader(block(readme(), "properties")));
        Map<String, String> settings = new HashMap<>();
        props.stringPropertyNames().forEach(k -> settings.put(k, props.getProperty(k)));
        return settings;
    }

    /** The topics the README's {@code kafka-topics.sh --create} commands create, with their {@code --config}s. */
    static Map<String, Map<String, String>> topicCommands(String readme) {
        Map<String, Map<String, String>> topics = new HashMap<>();
        for (String command : commands(block(readme, "sh", "kafka-topics.sh"))) {
            if (!command.contains("kafka-topics.sh") || !command.contains("--create")) {
                continue;
            }
            Matcher topic = Pattern.compile("--topic (\\S+)").matcher(command);
            assertThat(topic.find()).as("a topic in " + command).isTrue();
            Map<String, String> configs = new HashMap<>();
            Matcher config = Pattern.compile("--config (\\S+)=(\\S+)").matcher(command);
            while (config.find()) {
                configs.put(config.group(1), config.group(2));
            }
            topics.put(topic.group(1), configs);
        }
        return topics;
    }

    /** The shell commands of a block, continuation lines joined. */
    static List<String> commands(String block) {
        List<String> commands = new ArrayList<>();
        for (String command : block.replace("\\\n", " ").split("\n")) {
            if (!command.isBlank()) {
                commands.add(command.replaceAll("\\s+", " ").trim());
            }
        }
        return commands;
    }

    /** The first fenced block of this language (that contains {@code containing}, if given). */
    static String block(String markdown, String language, String... containing) {
        Matcher block = Pattern.compile("```" + language + "\n(.*?)```", Pattern.DOTALL).matcher(markdown);
        while (block.find()) {
            if (containing.length == 0 || block.group(1).contains(containing[0])) {
                return block.group(1);
            }
        }
        throw new AssertionError("no ```" + language + " block in the README");
    }

    static String readme() throws Exception {
        return Files.readString(README, StandardCharsets.UTF_8);
    }

    /** Every topic setting Kafka defines (the constants of {@link TopicConfig} whose name ends in _CONFIG). */
    private static Set<String> topicConfigNames() throws IllegalAccessException {
        Set<String> names = new HashSet<>();
        for (Field field : TopicConfig.class.getFields()) {
            if (Modifier.isStatic(field.getModifiers()) && field.getName().endsWith("_CONFIG")) {
                names.add((String) field.get(null));
            }
        }
        return names;
    }
}
