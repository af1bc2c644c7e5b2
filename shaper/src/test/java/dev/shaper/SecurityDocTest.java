package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.admission.RedisLimits;
import dev.shaper.internals.capacity.CapacityLeaseScript;
import dev.shaper.internals.capacity.adaptive.CapacityDecisionScript;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.redis.RedisScript;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.wiring.TopologyWiring;
import dev.shaper.testsupport.DocumentedAcls;
import dev.shaper.testsupport.ManualScheduler;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TopologyDescription;
import org.junit.jupiter.api.Test;

/**
 * The ACLs {@code docs/security.md} lists against what the code uses: every topic of the topology (sources,
 * sinks, each store's changelog, any repartition topic) and the consumer group, and every Redis command the client
 * and the scripts run, on the keys they name. {@code SecuredDeploymentIT} runs the shaper with these ACLs; this
 * test names the missing one at once, without a broker.
 */
class SecurityDocTest {

    private static final String APP_ID = "my-shaper";
    private static final Map<String, String> NAMES = Map.of("APP_ID", APP_ID, "INPUT", "requests",
            "OUTPUT", "requests-shaped", "REJECTED", "requests-rejected", "FEEDBACK", "db-feedback",
            "RULES", "shaper-rules", "SHADOW", "shaper-shadow");
    private static final List<AclBinding> DOCUMENTED = DocumentedAcls.kafkaBindings("User:shaper", NAMES);

    @Test
    void everyTopicOfTheTopologyAndItsGroupAreCoveredByTheDocumentedKafkaAcls() {
        Map<String, String> settings = new HashMap<>();
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "kafka:9092");
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, NAMES.get("INPUT"));
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, NAMES.get("OUTPUT"));
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, NAMES.get("REJECTED"));
        settings.put(ShaperConfig.SHADOW_TOPIC_CONFIG, NAMES.get("SHADOW"));
        ShaperConfig config = new ShaperConfig(settings);
        // With admission, so that every processor and store the shaper can have is in the topology.
        RuleBook rules = new RuleBook(config.defaultShapingRule(), AdmissionPolicy.of(new AdmissionRule(10, 10)), List.of());
        ManualScheduler never = new ManualScheduler(); // nothing runs: the topology is only described
        AdmissionController localOnly = new AdmissionController(null, AdmissionMode.STRICT, Duration.ofMillis(100),
                Duration.ofSeconds(1), () -> 1, never, never::nanoTime);
        TopologyDescription topology = TopologyWiring.build(config, new TopologyWiring.Parts(rules, 1, localOnly,
                ShaperMetrics.inMemory(), TopicLimits.assumed(config.producerMaxRequestSize()))).describe();

        Set<String> sources = new TreeSet<>();
        Set<String> sinks = new TreeSet<>();
        Set<String> stores = new TreeSet<>();
        for (TopologyDescription.Subtopology sub : topology.subtopologies()) {
            for (TopologyDescription.Node node : sub.nodes()) {
                if (node instanceof TopologyDescription.Source source) {
                    sources.addAll(source.topicSet());
                } else if (node instanceof TopologyDescription.Sink sink) {
                    sinks.add(sink.topic());
                } else if (node instanceof TopologyDescription.Processor processor) {
                    stores.addAll(processor.stores());
                }
            }
        }
        assertThat(topology.globalStores()).isEmpty();
        assertThat(sources).containsExactly(NAMES.get("INPUT"));
        assertThat(sinks).containsExactlyInAnyOrder(NAMES.get("OUTPUT"), NAMES.get("REJECTED"), NAMES.get("SHADOW"));
        assertThat(stores).isNotEmpty();

        for (String input : sources) {
            assertAllowed(ResourceType.TOPIC, input, AclOperation.READ);
        }
        for (String output : sinks) {
            assertAllowed(ResourceType.TOPIC, output, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        }
        List<String> changelogs = stores.stream().map(store -> APP_ID + "-" + store + "-changelog").toList();
        assertThat(changelogs).containsExactlyInAnyOrderElementsOf(ShaperTopology.changelogTopics(APP_ID));
        for (String changelog : changelogs) {
            assertAllowed(ResourceType.TOPIC, changelog, AclOperation.CREATE, AclOperation.READ, AclOperation.WRITE,
                    AclOperation.DESCRIBE_CONFIGS);
        }
        assertAllowed(ResourceType.GROUP, APP_ID, AclOperation.READ);
        // exactly_once_v2's transactional ids: <application.id>-<process id>-<thread>
        assertAllowed(ResourceType.TRANSACTIONAL_ID, APP_ID + "-0f7c6a4e-7d0c-4b8e-9d8a-7e1d2c3b4a59-1",
                AclOperation.WRITE);
        assertAllowed(ResourceType.TOPIC, NAMES.get("FEEDBACK"), AclOperation.READ);
        assertAllowed(ResourceType.TOPIC, NAMES.get("RULES"), AclOperation.READ);
    }

    @Test
    void thePageNamesTheChangelogTopicsAsTheTopologyDoes() throws IOException {
        String page = Files.readString(DocumentedAcls.PAGE);
        for (String changelog : ShaperTopology.changelogTopics("APP_ID")) {
            assertThat(page).contains("`" + changelog + "`");
        }
    }

    @Test
    void theDocumentedRedisUserMayRunEveryCommandOfTheClientAndTheScriptsOnTheShapersKeys() throws IOException {
        List<String> rules = DocumentedAcls.redisRules();
        Set<String> allowed = new TreeSet<>();
        for (String rule : rules) {
            if (rule.startsWith("+")) {
                allowed.add(rule.substring(1).toLowerCase(Locale.ROOT));
            }
        }
        // The client's own commands: scripts by hash and by source, the health ping, the cluster check
        Set<String> needed = new TreeSet<>(List.of("evalsha", "eval", "ping", "info"));
        // Redis checks the commands a script calls against the user's ACL too: the scripts as Redis runs them,
        // with their shared fragments
        Pattern call = Pattern.compile("redis\\.p?call\\('([A-Za-z]+)'");
        List<String> scripts = new java.util.ArrayList<>(List.of(RedisScript.load("dev/shaper/capacity-lease.lua")
                .source(), RedisScript.load("dev/shaper/capacity-decision.lua").source()));
        AdmissionAlgorithm.all().forEach(algorithm -> scripts.add(algorithm.script().source()));
        for (String script : scripts) {
            Matcher m = call.matcher(script);
            while (m.find()) {
                needed.add(m.group(1).toLowerCase(Locale.ROOT));
            }
        }
        assertThat(needed).contains("time", "hset", "pexpire", "get", "incrby");
        assertThat(allowed).as("the commands of the page's ACL SETUSER line").isEqualTo(needed);
        // Nothing else: every category and channel taken away first
        assertThat(rules).contains("-@all", "resetchannels", "resetkeys");
        // And the keys: every key the shaper writes is under the one pattern the user may touch
        assertThat(rules).filteredOn(rule -> rule.startsWith("~")).containsExactly("~shaper:*");
        List<String> prefixes = new java.util.ArrayList<>(List.of(RedisLimits.PROBE_KEY,
                CapacityLeaseScript.KEY_PREFIX, CapacityDecisionScript.KEY_PREFIX));
        AdmissionAlgorithm.all().forEach(algorithm -> prefixes.add(algorithm.keyPrefix()));
        for (String prefix : prefixes) {
            assertThat(prefix).startsWith("shaper:");
        }
    }

    /** Fails unless the documented ACLs allow every one of {@code operations} on the resource {@code name}. */
    private static void assertAllowed(ResourceType type, String name, AclOperation... operations) {
        for (AclOperation operation : operations) {
            boolean allowed = DOCUMENTED.stream().anyMatch(binding -> binding.pattern().resourceType() == type
                    && binding.entry().operation() == operation
                    && (binding.pattern().patternType() == PatternType.LITERAL
                    ? binding.pattern().name().equals(name) : name.startsWith(binding.pattern().name())));
            assertThat(allowed).as("%s on %s %s by the ACLs of %s", operation, type, name, DocumentedAcls.PAGE)
                    .isTrue();
        }
    }
}
