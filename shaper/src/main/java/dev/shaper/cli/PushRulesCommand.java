package dev.shaper.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.shaper.internals.rules.RuleRecord;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.AbstractMap;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code rules push FILE}: publishes the rules of a file, all checked before any is published. The file is a rules
 * file whose entries also carry an {@code id}, and may carry an {@code order} (by default the entry's position).
 */
@Command(name = "push", mixinStandardHelpOptions = true,
        description = "Publish the rules of FILE (YAML or JSON: a list 'rules' of rules-file entries, each with an id"
                + " and optionally an order, by default its position in the list). Every rule is checked before any"
                + " is published; rules the topic already holds unchanged are not published again.")
final class PushRulesCommand implements Runnable {

    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    @Mixin
    private TopicOptions topic;

    @Parameters(index = "0", paramLabel = "FILE", description = "The rules to publish")
    private Path file;

    @Option(names = "--prune", description = "Also delete the topic's rules that FILE does not name")
    private boolean prune;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        Map<String, RuleRecord.Put> wanted = read();
        RulesTopicClient client = new RulesTopicClient(topic);
        TopicContents before = client.read();
        List<Map.Entry<String, String>> records = new ArrayList<>();
        int unchanged = 0;
        for (RuleRecord.Put put : wanted.values()) {
            RuleRecord.Put current = before.rule(put.id());
            if (put.sameAs(current)) {
                unchanged++;
            } else {
                records.add(Map.entry(put.id(), put.json()));
            }
        }
        int set = records.size();
        if (prune) {
            Set<String> present = new HashSet<>(before.refused().keySet());
            before.rules().forEach(rule -> present.add(rule.id()));
            present.removeAll(wanted.keySet());
            present.stream().sorted().forEach(id -> records.add(new AbstractMap.SimpleEntry<>(id, null)));
        }
        if (!records.isEmpty()) {
            client.publish(records);
        }
        spec.commandLine().getOut().println(file + ": " + set + " rule(s) set, " + unchanged + " unchanged"
                + (prune ? ", " + (records.size() - set) + " deleted" : ""));
    }

    /** The file's rules by id, every one checked; nothing is published if any is wrong. */
    private Map<String, RuleRecord.Put> read() {
        JsonNode root;
        try {
            root = YAML.readTree(Files.readString(file));
        } catch (IOException e) {
            String why = e instanceof JacksonException json ? "not valid YAML or JSON: " + json.getOriginalMessage()
                    : "cannot be read: " + e.getMessage();
            throw new CommandFailure(RulesCommand.EXIT_USAGE, "nothing published: " + file + " " + why);
        }
        JsonNode list = root == null ? null : root.get("rules");
        if (list == null || !list.isArray() || root.size() != 1) {
            throw new CommandFailure(RulesCommand.EXIT_USAGE, "nothing published: " + file + ": expected a"
                    + " top-level list 'rules' and nothing else");
        }
        Map<String, RuleRecord.Put> rules = new LinkedHashMap<>();
        for (int i = 0; i < list.size(); i++) {
            String where = file + ": rules[" + i + "]";
            JsonNode entry = list.get(i);
            if (!entry.isObject() || !entry.path("id").isTextual()) {
                throw new CommandFailure(RulesCommand.EXIT_USAGE, "nothing published: " + where + ": expected an"
                        + " entry with an id (text) and the fields of a rule");
            }
            ObjectNode fields = ((ObjectNode) entry).deepCopy();
            String id = fields.remove("id").asText();
            int order = i;
            if (fields.has(RuleRecord.ORDER_FIELD)) {
                JsonNode given = fields.get(RuleRecord.ORDER_FIELD);
                if (!given.isIntegralNumber() || !given.canConvertToInt()) {
                    throw new CommandFailure(RulesCommand.EXIT_USAGE, "nothing published: " + where + ": order is "
                            + given + "; expected a whole number (lower is matched first)");
                }
                order = given.intValue();
            }
            RuleRecord.Put put;
            try {
                put = (RuleRecord.Put) RulesTopicClient.check(id, RuleRecord.value(fields, order));
            } catch (CommandFailure e) {
                throw new CommandFailure(e.exitCode(), "nothing published: " + where + ": "
                        + e.getMessage().replaceFirst("^not published: ", ""));
            }
            if (rules.put(id, put) != null) {
                throw new CommandFailure(RulesCommand.EXIT_USAGE, "nothing published: " + where + ": id \"" + id
                        + "\" is used twice in the file; expected one entry per id");
            }
        }
        return rules;
    }
}
