package dev.shaper.docs;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.config.SettingsLoader;
import dev.shaper.internals.rules.RulesFile;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.streams.StreamsConfig;

/**
 * Renders the configuration reference as Markdown: the shaper's settings from their {@link ConfigDef}, grouped by
 * the word after {@code shaper.}, the rules file's fields, and the Kafka Streams defaults the shaper changes.
 */
final class ConfigurationWriter {

    /** A group of settings: the word after {@code shaper.} that selects them, a heading and a line about them. */
    private record Group(String heading, String about, List<String> words) {
    }

    /** The groups, in the document's order. A key whose word no group names gets a group of its own at the end. */
    static final List<Group> GROUPS = List.of(
            new Group("Topics", "The three topics the shaper reads and writes. They must exist before the start"
                    + " (the shaper names any that is missing and exits with 4); how to create them:"
                    + " [the README's quick start](../README.md#quick-start-against-your-cluster).",
                    List.of("input", "output", "rejected")),
            new Group("Shaping", "Each key's leaky bucket, the total rate, and the release: see"
                    + " [how it works](how-it-works.md).", List.of("shaping")),
            new Group("Per-key rules", "Per-key values for the shaping and admission settings; the file's format is"
                    + " [below](#the-rules-file).", List.of("rules")),
            new Group("Shadow mode", "Rules tried on live traffic, reported and counted but not enforced: see"
                    + " [rules.md](rules.md#shadow-mode).", List.of("mode", "shadow")),
            new Group("Capacity", "How the total rate is shared across instances, and the closed loop that moves it"
                    + " with the database writers' feedback: see [capacity.md](capacity.md).", List.of("capacity")),
            new Group("Admission", "The token buckets a record passes before its leaky bucket: see"
                    + " [admission.md](admission.md).", List.of("admission")),
            new Group("Redis", "Where the admission's shared counters and the capacity's leases live: see"
                    + " [admission.md](admission.md).", List.of("redis")),
            new Group("Memory and state", "What an instance keeps in memory in front of RocksDB, and RocksDB's own"
                    + " memory: see [operations.md](operations.md#memory).", List.of("state")),
            new Group("HTTP server", "Metrics, health and per-key queries: see"
                    + " [operations.md](operations.md#metrics-health-and-per-key-queries).", List.of("http")));

    /**
     * The fields of a rule in the rules file, as {@code RulesFile} reads them, and what each means. The test checks
     * that these are exactly the fields the reader accepts.
     */
    static final Map<String, String[]> RULE_FIELDS = new LinkedHashMap<>();

    static {
        RULE_FIELDS.put("exact", new String[] {"the key, exactly (exactly one of `exact`, `prefix`, `glob`, `regex`"
                + " per rule)", ""});
        RULE_FIELDS.put("prefix", new String[] {"keys that start with this", ""});
        RULE_FIELDS.put("glob", new String[] {"`*` any run of characters, `?` one character", ""});
        RULE_FIELDS.put("regex", new String[] {"a Java regular expression that matches the whole key", ""});
        RULE_FIELDS.put("rate", new String[] {"release rate of each matching key, units/s (> 0)",
                "`" + ShaperConfig.SHAPING_RATE_CONFIG + "`"});
        RULE_FIELDS.put("max.queue", new String[] {"records one key may have waiting (>= 0)",
                "`" + ShaperConfig.SHAPING_MAX_QUEUE_CONFIG + "`"});
        RULE_FIELDS.put("max.delay.ms", new String[] {"longest wait of a record, ms (>= 0)",
                "`" + ShaperConfig.SHAPING_MAX_DELAY_MS_CONFIG + "`"});
        RULE_FIELDS.put("priority", new String[] {"when the total rate binds, priority 0 goes first, then 1, ...;"
                + " from 0 to " + dev.shaper.internals.shaping.ShapingRule.LOWEST_PRIORITY, "`0`"});
        RULE_FIELDS.put("weight", new String[] {"within a priority, keys share the total rate by weight x rate (> 0)",
                "`1`"});
        RULE_FIELDS.put("admission.rate", new String[] {"the key's admission token bucket, tokens/s (> 0)",
                "`" + ShaperConfig.ADMISSION_RATE_CONFIG + "`"});
        RULE_FIELDS.put("admission.burst", new String[] {"its capacity, tokens (0 or >= 1; 0: one second of the"
                + " rate)", "`" + ShaperConfig.ADMISSION_BURST_CONFIG + "`"});
        RULE_FIELDS.put("admission.algorithm", new String[] {"how the key's admission limits count: `token-bucket`,"
                + " `fixed-window` or `sliding-window`; alone, the default limits under that algorithm (see"
                + " [admission.md](admission.md#algorithms-side-by-side))",
                "`" + ShaperConfig.ADMISSION_ALGORITHM_CONFIG + "`"});
        RULE_FIELDS.put("admission.limits", new String[] {"several limits that must all allow a record, each"
                + " `{rate, per, burst}`: `rate` units per `per` (a whole number and `ms`, `s`, `m`, `h`, `d` or `y`;"
                + " default `1s`), `burst` for a token bucket only (default `rate`); instead of `admission.rate` and"
                + " `admission.burst`, never with them (see [admission.md](admission.md#several-limits-per-key))",
                "`admission.rate` / `admission.burst`"});
        RULE_FIELDS.put("mode", new String[] {"`enforce`, or `shadow`: the rule's decisions are reported and counted,"
                + " and its records pass at once (see [rules.md](rules.md#shadow-mode)); `" + ShaperConfig.MODE_CONFIG
                + "=shadow` puts every rule in shadow", "`enforce`"});
    }

    private final ConfigDef configDef;
    private final String exampleRules;
    private final StringBuilder out = new StringBuilder();

    ConfigurationWriter(ConfigDef configDef, String exampleRules) {
        this.configDef = configDef;
        this.exampleRules = exampleRules;
    }

    String write() {
        line("# Configuration reference");
        line();
        line("<!-- Generated from the code by the topology-docs module; do not edit. Regenerate with:");
        line("     " + TopologyDocs.REGENERATE + " -->");
        line();
        line("The settings file is a Java properties file holding the Kafka Streams settings (`application.id`,"
                + " `bootstrap.servers`, any Kafka Streams or client key) and the shaper's own `shaper.*` settings,"
                + " listed below from `ShaperConfig`'s `ConfigDef`: [`shaper/config/shaper.properties`]"
                + "(../shaper/config/shaper.properties) is an example. Any key not under `shaper.` passes to Kafka"
                + " Streams unchanged; [a few of Kafka Streams' defaults](#kafka-streams-defaults-the-shaper-changes)"
                + " are changed, `processing.guarantee` to `exactly_once_v2` first of all.");
        line();
        line("An environment variable overrides one key: upper case, dots written as underscores; shaper keys keep"
                + " their `SHAPER_` prefix (`SHAPER_SHAPING_RATE=50` sets `shaper.shaping.rate`), Kafka keys take the"
                + " prefix `STREAMS_` (`STREAMS_BOOTSTRAP_SERVERS=kafka:9092` sets `bootstrap.servers`). A value of"
                + " the wrong type or out of range, an unknown `shaper.*` key (a typo), or a bad rules file stops the"
                + " start with a message naming the key, the value and what is expected (exit code 2). A `SHAPER_*`"
                + " environment variable that names no setting is ignored with one warning, since Kubernetes sets"
                + " `SHAPER_SERVICE_HOST`, `SHAPER_PORT` and others in every pod when a Service is named `shaper`.");
        line();
        Map<Group, List<ConfigDef.ConfigKey>> grouped = grouped();
        writeIndex(grouped);
        grouped.forEach(this::writeGroup);
        writeRulesFile();
        writeStreamsDefaults();
        return out.toString();
    }

    /** The keys by group, each group's keys in the order {@code ShaperConfig} defines them. */
    private Map<Group, List<ConfigDef.ConfigKey>> grouped() {
        Map<Group, List<ConfigDef.ConfigKey>> grouped = new LinkedHashMap<>();
        GROUPS.forEach(g -> grouped.put(g, new ArrayList<>()));
        Map<String, Group> extra = new LinkedHashMap<>();
        for (ConfigDef.ConfigKey key : configDef.configKeys().values()) {
            String word = wordOf(key.name);
            Group group = GROUPS.stream().filter(g -> g.words().contains(word)).findFirst()
                    .orElseGet(() -> extra.computeIfAbsent(word, w -> new Group("`shaper." + w + ".*`", "", List.of(w))));
            grouped.computeIfAbsent(group, g -> new ArrayList<>()).add(key);
        }
        grouped.values().removeIf(List::isEmpty);
        return grouped;
    }

    private static String wordOf(String key) {
        String rest = key.substring(ShaperConfig.PREFIX.length());
        int dot = rest.indexOf('.');
        return dot < 0 ? rest : rest.substring(0, dot);
    }

    private void writeIndex(Map<Group, List<ConfigDef.ConfigKey>> grouped) {
        line("## All settings");
        line();
        line("| setting | type | default | importance |");
        line("| --- | --- | --- | --- |");
        grouped.values().forEach(keys -> keys.forEach(key -> line("| [`" + key.name + "`](#" + anchor(key.name)
                + ") | " + typeOf(key) + " | " + defaultOf(key) + " | " + lower(key.importance.name()) + " |")));
        line();
    }

    private void writeGroup(Group group, List<ConfigDef.ConfigKey> keys) {
        line("## " + group.heading());
        line();
        if (!group.about().isEmpty()) {
            line(group.about());
            line();
        }
        for (ConfigDef.ConfigKey key : keys) {
            line("### `" + key.name + "`");
            line();
            line(key.documentation.replace("\n", " "));
            line();
            line("| type | default | valid values | importance | environment variable |");
            line("| --- | --- | --- | --- | --- |");
            line("| " + typeOf(key) + " | " + defaultOf(key) + " | " + escape(validValues(key)) + " | "
                    + lower(key.importance.name()) + " | `" + SettingsLoader.toEnvironmentName(key.name) + "` |");
            line();
        }
    }

    private void writeRulesFile() {
        line("## The rules file");
        line();
        line("`" + ShaperConfig.RULES_FILE_CONFIG + "` names a YAML (or JSON) file of rules. The first rule whose"
                + " pattern matches the record key (as UTF-8 text) wins, the defaults apply to keys no rule matches,"
                + " and any field a rule leaves out takes the default. A mistake stops the start with a message that"
                + " names the file, the rule and the field (exit code 2). A field given twice in one rule is such a"
                + " mistake, as on the rules topic, not the last value winning. The file holds at most 3 MiB ("
                + String.format(Locale.ROOT, "%,d", RulesFile.MAX_FILE_CHARS) + " characters, about"
                + " 100,000 one-line rules); a larger set of rules belongs on the rules topic. The example"
                + " [`shaper/config/rules.yaml`](../shaper/config/rules.yaml):");
        line();
        line("```yaml");
        out.append(exampleRules.endsWith("\n") ? exampleRules : exampleRules + "\n");
        line("```");
        line();
        line("| field | meaning | default |");
        line("| --- | --- | --- |");
        RULE_FIELDS.forEach((field, about) -> line("| `" + field + "` | " + about[0] + " | "
                + (about[1].isEmpty() ? "" : about[1]) + " |"));
        line();
        line("`" + ShaperConfig.RULES_TOPIC_CONFIG + "` adds rules with the same fields while the shaper runs, after"
                + " the file's: see [managing rules live](rules.md#managing-rules-live).");
        line();
    }

    private void writeStreamsDefaults() {
        line("## Kafka Streams defaults the shaper changes");
        line();
        line("From `ShaperConfig.streamsProperties()`. Each applies unless the settings file sets the key, in any form"
                + " Kafka Streams hands to the same client (for the producer's keys with or without `producer.`; for"
                + " `fetch.max.wait.ms` plain, under `consumer.` or under `restore.consumer.`; for"
                + " `session.timeout.ms` plain, under `consumer.` or under `main.consumer.`). Why each, with the"
                + " measurements: [decision 0001](decisions/0001-kafka-streams-defaults.md).");
        line();
        Map<String, String> exactlyOnce = shaperDefaults(Map.of());
        Map<String, String> atLeastOnce = shaperDefaults(Map.of(StreamsConfig.PROCESSING_GUARANTEE_CONFIG,
                StreamsConfig.AT_LEAST_ONCE));
        line("| setting | the shaper's default | under `at_least_once` | Kafka's default |");
        line("| --- | --- | --- | --- |");
        TreeSet<String> keys = new TreeSet<>(exactlyOnce.keySet());
        keys.addAll(atLeastOnce.keySet());
        for (String key : keys) {
            String eos = exactlyOnce.get(key);
            String alos = atLeastOnce.get(key);
            String underAlos = key.equals(StreamsConfig.PROCESSING_GUARANTEE_CONFIG) ? "-" : alos == null ? "(Kafka's)"
                    : alos.equals(eos) ? "the same" : "`" + alos + "`";
            line("| `" + key + "` | " + (eos == null ? "(Kafka's)" : "`" + eos + "`") + " | " + underAlos + " | "
                    + kafkaDefault(key) + " |");
        }
        line();
        line("`" + StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG + "` is set only while `"
                + ShaperConfig.STATE_ROCKSDB_MEMORY_BYTES_CONFIG + "` is above 0, and a setter of your own replaces it"
                + " (and with it that bound).");
        line();
    }

    /** The keys outside {@code shaper.} that the shaper sets when the file sets nothing, with their values. */
    static Map<String, String> shaperDefaults(Map<String, String> settings) {
        Properties props = new ShaperConfig(settings).streamsProperties();
        Map<String, String> defaults = new java.util.TreeMap<>();
        props.forEach((k, v) -> {
            String key = String.valueOf(k);
            if (!key.startsWith(ShaperConfig.PREFIX) && !settings.containsKey(key)) {
                defaults.put(key, String.valueOf(v));
            }
        });
        return defaults;
    }

    /**
     * Kafka Streams with nothing set but what it requires, to ask what it hands its clients. (The global handler's
     * flag only silences a warning per client; the documented defaults of Kafka Streams' own keys come from its
     * {@code ConfigDef}.)
     */
    private static final StreamsConfig PLAIN = new StreamsConfig(Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "docs",
            StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "localhost:9092", "processing.exception.handler.global.enabled",
            "true"));

    /** What Kafka Streams would use for {@code key} if the shaper did not set it. */
    static String kafkaDefault(String key) {
        Object value;
        if (key.startsWith(StreamsConfig.PRODUCER_PREFIX)) {
            String k = key.substring(StreamsConfig.PRODUCER_PREFIX.length());
            value = PLAIN.getProducerConfigs("docs").getOrDefault(k, ProducerConfig.configDef().defaultValues().get(k));
        } else if (key.startsWith(StreamsConfig.MAIN_CONSUMER_PREFIX)) {
            String k = key.substring(StreamsConfig.MAIN_CONSUMER_PREFIX.length());
            value = PLAIN.getMainConsumerConfigs("docs", "docs", 0)
                    .getOrDefault(k, ConsumerConfig.configDef().defaultValues().get(k));
        } else if (key.startsWith(StreamsConfig.RESTORE_CONSUMER_PREFIX)) {
            String k = key.substring(StreamsConfig.RESTORE_CONSUMER_PREFIX.length());
            value = PLAIN.getRestoreConsumerConfigs("docs")
                    .getOrDefault(k, ConsumerConfig.configDef().defaultValues().get(k));
        } else if (StreamsConfig.configDef().names().contains(key)) {
            value = StreamsConfig.configDef().defaultValues().get(key);
        } else {
            return "(not a Kafka Streams setting in this version)";
        }
        if (value instanceof Class<?> c) {
            value = c.getName();
        }
        return value == null ? "(none)" : "`" + value + "`";
    }

    private static String typeOf(ConfigDef.ConfigKey key) {
        return lower(key.type.name());
    }

    private static String defaultOf(ConfigDef.ConfigKey key) {
        if (!key.hasDefault()) {
            return "(required)";
        }
        Object value = key.defaultValue;
        if (value instanceof Password p) {
            value = p.value();
        }
        if (value instanceof Double d && d == Math.rint(d) && !Double.isInfinite(d)) {
            value = Long.toString(d.longValue()); // 100, not 100.0
        }
        String text = String.valueOf(value);
        return text.isEmpty() ? "(empty)" : "`" + text + "`";
    }

    private static String validValues(ConfigDef.ConfigKey key) {
        if (key.type == ConfigDef.Type.BOOLEAN) {
            return "`true`, `false`";
        }
        return key.validator == null ? "any" : key.validator.toString();
    }

    /** GitHub's anchor of a heading that is just {@code `key`}: the key without its dots. */
    static String anchor(String key) {
        return key.toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9_ -]", "").replace(' ', '-');
    }

    private static String lower(String text) {
        return text.toLowerCase(Locale.ROOT);
    }

    private static String escape(String text) {
        return text.replace("|", "\\|").replace("\n", " ");
    }

    private void line(String text) {
        out.append(text).append('\n');
    }

    private void line() {
        out.append('\n');
    }
}
