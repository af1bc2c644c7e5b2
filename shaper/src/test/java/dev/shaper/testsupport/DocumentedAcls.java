package dev.shaper.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The ACLs {@code docs/security.md} tells an operator to give the shaper, read from the page itself, so that the
 * tests run the shaper with exactly what the documentation says: the {@code kafka-acls.sh} lines (each
 * {@code $ACLS ...} line of the page) as Kafka {@link AclBinding}s, and the Redis {@code ACL SETUSER} line's rules.
 */
public final class DocumentedAcls {

    /** The page, relative to the shaper module's directory (the working directory of its tests). */
    public static final Path PAGE = Path.of("..", "docs", "security.md");

    private static final Pattern VARIABLE = Pattern.compile("\\$([A-Z_]+)");

    private DocumentedAcls() {
    }

    /**
     * One documented {@code kafka-acls.sh --add} line.
     *
     * @param variables the page's variables the line names ({@code INPUT}, {@code APP_ID}, ...)
     */
    public record KafkaAcl(String line, ResourceType resourceType, String name, PatternType patternType,
                           List<AclOperation> operations, List<String> variables) {

        /** The bindings this line creates for {@code principal}, its variables replaced by {@code values}. */
        public List<AclBinding> bindings(String principal, Map<String, String> values) {
            ResourcePattern pattern = new ResourcePattern(resourceType, substitute(name, values), patternType);
            return operations.stream().map(operation -> new AclBinding(pattern,
                    new AccessControlEntry(principal, "*", operation, AclPermissionType.ALLOW))).toList();
        }
    }

    /** Every {@code $ACLS ...} line of the page, in order. */
    public static List<KafkaAcl> kafka() {
        List<KafkaAcl> acls = new ArrayList<>();
        for (String line : lines()) {
            if (line.startsWith("ACLS=")) {
                if (!line.contains("--add --allow-principal $PRINCIPAL\"")) {
                    throw new IllegalStateException("the ACLS command of " + PAGE + " no longer adds for $PRINCIPAL: "
                            + line);
                }
            } else if (line.startsWith("$ACLS ")) {
                acls.add(parse(line));
            }
        }
        if (acls.isEmpty()) {
            throw new IllegalStateException("no '$ACLS ...' line in " + PAGE);
        }
        return acls;
    }

    /** The bindings of every documented line for {@code principal}, the page's variables replaced by {@code values}. */
    public static List<AclBinding> kafkaBindings(String principal, Map<String, String> values) {
        return kafka().stream().flatMap(acl -> acl.bindings(principal, values).stream()).toList();
    }

    /**
     * The rules of the page's {@code ACL SETUSER <user> ...} line, without the user's switch ({@code on}) and
     * password ({@code >...}), which the caller sets.
     */
    public static List<String> redisRules() {
        for (String line : lines()) {
            if (line.startsWith("ACL SETUSER ")) {
                String[] words = line.trim().split("\\s+");
                List<String> rules = new ArrayList<>();
                for (int i = 3; i < words.length; i++) {
                    if (!words[i].equals("on") && !words[i].startsWith(">")) {
                        rules.add(words[i]);
                    }
                }
                return rules;
            }
        }
        throw new IllegalStateException("no 'ACL SETUSER' line in " + PAGE);
    }

    private static KafkaAcl parse(String line) {
        String[] words = line.trim().split("\\s+");
        ResourceType type = null;
        String name = null;
        PatternType pattern = PatternType.LITERAL;
        List<AclOperation> operations = new ArrayList<>();
        for (int i = 1; i < words.length; i++) {
            String option = words[i];
            String value = i + 1 < words.length ? words[i + 1].replace("\"", "") : null;
            switch (option) {
                case "--operation" -> operations.add(operation(value, line));
                case "--topic" -> {
                    type = ResourceType.TOPIC;
                    name = value;
                }
                case "--group" -> {
                    type = ResourceType.GROUP;
                    name = value;
                }
                case "--transactional-id" -> {
                    type = ResourceType.TRANSACTIONAL_ID;
                    name = value;
                }
                case "--resource-pattern-type" -> pattern = PatternType.fromString(value.toUpperCase(Locale.ROOT));
                case "--cluster" -> {
                    type = ResourceType.CLUSTER;
                    name = "kafka-cluster";
                    continue;
                }
                default -> throw new IllegalStateException("unknown option " + option + " in " + PAGE + ": " + line);
            }
            i++;
        }
        if (type == null || operations.isEmpty() || pattern == PatternType.UNKNOWN) {
            throw new IllegalStateException("an ACL line of " + PAGE + " without a resource or operation: " + line);
        }
        List<String> variables = new ArrayList<>();
        Matcher m = VARIABLE.matcher(name);
        while (m.find()) {
            variables.add(m.group(1));
        }
        return new KafkaAcl(line, type, name, pattern, List.copyOf(operations), List.copyOf(variables));
    }

    /** {@code DescribeConfigs} (as kafka-acls.sh spells it) as {@link AclOperation#DESCRIBE_CONFIGS}. */
    private static AclOperation operation(String name, String line) {
        AclOperation operation = AclOperation.fromString(
                name.replaceAll("([a-z])([A-Z])", "$1_$2").toUpperCase(Locale.ROOT));
        if (operation == AclOperation.UNKNOWN) {
            throw new IllegalStateException("unknown operation " + name + " in " + PAGE + ": " + line);
        }
        return operation;
    }

    private static String substitute(String text, Map<String, String> values) {
        Matcher m = VARIABLE.matcher(text);
        StringBuilder out = new StringBuilder();
        while (m.find()) {
            String value = values.get(m.group(1));
            if (value == null) {
                throw new IllegalArgumentException("no value for $" + m.group(1) + " of " + PAGE + " in " + text);
            }
            m.appendReplacement(out, Matcher.quoteReplacement(value));
        }
        return m.appendTail(out).toString();
    }

    private static List<String> lines() {
        try {
            return Files.readAllLines(PAGE);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + PAGE.toAbsolutePath(), e);
        }
    }
}
