package dev.shaper.cli;

import dev.shaper.internals.rules.RuleRecord;
import java.io.PrintWriter;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code rules list}: the topic's rules in the order a shaper matches them, and the records it would refuse. */
@Command(name = "list", mixinStandardHelpOptions = true,
        description = "List the rules of the topic in the order the shaper matches them (after its rules file's):"
                + " order, id and the rule as JSON. Records the shaper refuses are listed after them, on stderr.")
final class ListRulesCommand implements Runnable {

    @Mixin
    private TopicOptions topic;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        TopicContents contents = new RulesTopicClient(topic).read();
        PrintWriter out = spec.commandLine().getOut();
        out.printf("%-8s %-30s %s%n", "ORDER", "ID", "RULE");
        for (RuleRecord.Put rule : contents.rules()) {
            out.printf("%-8d %-30s %s%n", rule.order(), rule.id(), rule.json());
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
