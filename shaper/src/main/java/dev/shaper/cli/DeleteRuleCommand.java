package dev.shaper.cli;

import java.util.AbstractMap;
import java.util.List;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Parameters;

/** {@code rules delete ID}: deletes one rule (a record with a null value). */
@Command(name = "delete", mixinStandardHelpOptions = true,
        description = "Delete the rule ID: its keys fall back to the next rule that matches them, or the defaults.")
final class DeleteRuleCommand implements Runnable {

    @Mixin
    private TopicOptions topic;

    @Parameters(index = "0", paramLabel = "ID", description = "The rule's id")
    private String id;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public void run() {
        RulesTopicClient.check(id, null);
        RulesTopicClient client = new RulesTopicClient(topic);
        if (!client.read().holds(id)) {
            spec.commandLine().getOut().println("no rule \"" + id + "\" on " + topic.topic + "; nothing deleted");
            return;
        }
        client.publish(List.of(new AbstractMap.SimpleEntry<>(id, null)));
        spec.commandLine().getOut().println("rule \"" + id + "\" deleted");
    }
}
