package dev.shaper.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import dev.shaper.internals.rules.RuleRecord;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code rules list}: the topic's rules in the order a shaper matches them, and the records it would refuse. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List the rules of the topic in the order the shaper matches them (after its rules file's):"
                + " order, id and the rule as JSON, its fields in the order of a rules-file entry whatever order they"
                + " were written in. Records the shaper refuses are listed after them, on stderr.")
final class ListRulesCommand implements Runnable {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Mixin
    private TopicOptions topic;

    @Mixin
    private OutputOption output;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        TopicContents contents = new RulesTopicClient(topic).read();
        PrintWriter out = spec.commandLine().getOut();
        if (output.format == OutputFormat.JSON) {
            ArrayNode rules = JSON.createArrayNode();
            for (RuleRecord.Put rule : contents.rules()) {
                rules.addObject().put("order", rule.order()).put("id", rule.id())
                        .set("rule", RuleRecord.canonical(rule.fields()));
            }
            out.println(rules);
        } else {
            out.printf("%-8s %-30s %s%n", "ORDER", "ID", "RULE");
            for (RuleRecord.Put rule : contents.rules()) {
                out.printf("%-8d %-30s %s%n", rule.order(), rule.id(), RuleRecord.canonical(rule.fields()));
            }
        }
        PrintWriter err = spec.commandLine().getErr();
        for (Map.Entry<String, String> refused : contents.refused().entrySet()) {
            err.println("refused by the shaper, " + (contents.rule(refused.getKey()) != null
                    ? "which keeps the version above: " : "which has no such rule: ") + refused.getValue());
        }
        contents.unkeyed().forEach(unkeyed -> err.println("refused by the shaper: " + unkeyed));
        out.flush();
        err.flush();
    }
}
