package dev.shaper.reliability;

import dev.shaper.ShaperConfig;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.ShaperInstance;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * How long the shaper's tasks are away after an instance stops, under the group settings Kafka Streams 4.3
 * offers: how soon a survivor takes over a lost instance's tasks, and how soon an instance restarted on the same
 * state directory runs again. A lost instance is one that stops without leaving its group (what the group sees of
 * a SIGKILL); a clean stop is the shaper's own close. Prints a table; part of the {@code reliability} profile, not
 * of {@code mvn verify} (each case waits out a session timeout).
 */
class RecoveryTimesRun {

    private static final Logger LOG = LoggerFactory.getLogger(RecoveryTimesRun.class);
    private static final int PARTITIONS = 4;

    private final List<String> table = new ArrayList<>();
    private int topicSet;

    @Test
    void measureRecoveryTimes() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start()) {
            for (int session : new int[] {45_000, 10_000}) { // Kafka's default; the shaper's
                Map<String, Object> group = Map.of(StreamsConfig.consumerPrefix("session.timeout.ms"), session,
                        StreamsConfig.consumerPrefix("heartbeat.interval.ms"), Math.min(3_000, session / 3));
                failover(broker, "classic, session " + session + " ms, lost", group, true);
                failover(broker, "classic, session " + session + " ms, shaper's close", group, false);
                restart(broker, "classic, session " + session + " ms, shaper's close", group, false, false);
                restart(broker, "classic, session " + session + " ms, lost", group, true, false);
                restart(broker, "classic, session " + session + " ms, static member, lost", group, true, true);
            }
            // Under this protocol a member asked to remain in the group left it all the same: its "lost" cases
            // measure a stop, not a loss (a lost member waits out group.streams.session.timeout.ms, at least 45 s
            // by the broker's defaults).
            Map<String, Object> streamsProtocol = Map.of(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
            failover(broker, "streams protocol, stopped (left the group)", streamsProtocol, true);
            restart(broker, "streams protocol, shaper's close", streamsProtocol, false, false);
        }
        LOG.info("Recovery times ({} input partitions, in-JVM broker):\n{}", PARTITIONS, String.join("\n", table));
    }

    /** Two instances; one is lost or stops; the time until the other runs every task. */
    private void failover(KafkaBroker broker, String name, Map<String, Object> group, boolean lost)
            throws Exception {
        Map<String, Object> settings = settings(broker, group, false);
        try (ShaperInstance survivor = ShaperInstance.start(settings);
             ShaperInstance gone = ShaperInstance.start(settings)) {
            ShaperInstance.awaitBalanced(Duration.ofSeconds(120), survivor, gone);
            long start = System.nanoTime();
            if (lost) {
                gone.streams().close(CloseOptions.groupMembershipOperation(
                        CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP).withTimeout(Duration.ofSeconds(30)));
            } else {
                gone.application().close();
            }
            Await.until("the survivor runs every task", Duration.ofSeconds(180),
                    () -> survivor.streams().state() == KafkaStreams.State.RUNNING
                            && survivor.activeTasks() == PARTITIONS);
            record("failover: " + name, start);
        }
    }

    /** One instance stops, and starts again on the same state directory; the time until it runs every task. */
    private void restart(KafkaBroker broker, String name, Map<String, Object> group, boolean lost,
                         boolean staticMember) throws Exception {
        Map<String, Object> settings = settings(broker, group, staticMember);
        settings.put(StreamsConfig.STATE_DIR_CONFIG, java.nio.file.Files.createTempDirectory("recovery").toString());
        ShaperInstance first = ShaperInstance.start(settings);
        ShaperInstance.awaitBalanced(Duration.ofSeconds(120), first);
        long start = System.nanoTime();
        if (lost) {
            first.streams().close(CloseOptions.groupMembershipOperation(
                    CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP).withTimeout(Duration.ofSeconds(30)));
        }
        first.application().close();
        try (ShaperInstance second = ShaperInstance.start(settings)) {
            Await.until("the restarted instance runs every task", Duration.ofSeconds(180),
                    () -> second.streams().state() == KafkaStreams.State.RUNNING
                            && second.activeTasks() == PARTITIONS);
            record("restart: " + name, start);
        }
    }

    private Map<String, Object> settings(KafkaBroker broker, Map<String, Object> group, boolean staticMember) {
        int set = ++topicSet;
        String in = "rec-in-" + set;
        broker.createTopics(PARTITIONS, in, "rec-out-" + set, "rec-rejected-" + set);
        Map<String, Object> settings = new HashMap<>();
        settings.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers());
        settings.put(StreamsConfig.APPLICATION_ID_CONFIG, "recovery-" + set);
        settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, in);
        settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, "rec-out-" + set);
        settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, "rec-rejected-" + set);
        settings.putAll(group);
        if (staticMember) {
            settings.put(StreamsConfig.consumerPrefix("group.instance.id"), "shaper-0");
        }
        return settings;
    }

    private void record(String name, long startNanos) {
        String line = String.format("%-70s %6.1f s", name, (System.nanoTime() - startNanos) / 1e9);
        LOG.info(line);
        table.add(line);
    }
}
