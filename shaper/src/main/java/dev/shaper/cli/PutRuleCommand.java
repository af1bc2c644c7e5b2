package dev.shaper.cli;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shaper.internals.rules.RuleRecord;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code rules put ID RULE}: sets one rule, checked first. */
@Command(name = "put", mixinStandardHelpOptions = true,
        description = "Set the rule ID: RULE is a JSON object with the fields of a rules-file entry (exact, prefix,"
                + " glob or regex; rate, max.queue, max.delay.ms, priority, weight, admission.rate, admission.burst,"
                + " admission.algorithm, admission.limits, mode),"
                + " and optionally order. The rule is checked as the shaper checks it before it is published.")
final class PutRuleCommand implements Runnable {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Mixin
    private TopicOptions topic;

    @Parameters(index = "0", paramLabel = "ID", description = "The rule's id: the record key")
    private String id;

    @Parameters(index = "1", paramLabel = "RULE", description = "The rule as JSON, e.g. '{\"prefix\": \"bulk-\","
            + " \"rate\": 5}'")
    private String rule;

    @Option(names = "--order", paramLabel = "N",
            description = "Where the rule is matched: lower first, ties by id (default: the order in RULE, else 0)")
    private Integer order;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        JsonNode fields;
        try {
            fields = JSON.readTree(rule);
        } catch (JacksonException e) {
            throw new CommandFailure(RulesCommand.EXIT_USAGE, "not published: RULE is not valid JSON: "
                    + e.getOriginalMessage() + "; expected one rule as a JSON object");
        }
        String value = fields != null && fields.isObject() && order != null ? RuleRecord.value(fields, order) : rule;
        RuleRecord.Put put = (RuleRecord.Put) RulesTopicClient.check(id, value);
        RulesTopicClient client = new RulesTopicClient(topic);
        TopicContents before = client.read();
        RuleRecord.Put current = before.rule(id);
        if (put.sameAs(current)) {
            spec.commandLine().getOut().println("rule \"" + id + "\" unchanged");
            return;
        }
        client.publish(List.of(Map.entry(id, put.json())));
        spec.commandLine().getOut().println("rule \"" + id + "\" " + (current == null ? "added" : "replaced")
                + " at order " + put.order() + ": " + put.json());
    }
}
