package dev.shaper.internals.cluster;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the topics the shaper writes its records to (the output and the rejected topic) and its stores' changelog
 * topics: a topic deleted under it, or deleted and created again, takes with it what was written and is not yet read,
 * and a release while it is gone goes nowhere the database writers read (or, on a broker that creates topics on
 * demand, to a topic made by the producer's request); a changelog gone takes the durable copy of the queues. A
 * changelog counts once it has been seen: Kafka Streams creates it at the first start. Once one is missing the watch
 * logs an ERROR naming it, takes readiness away and pauses the
 * application's processing ({@code onLost}): nothing is released or rejected meanwhile, the queues keep what they
 * hold. When it is back (the same topic, or one created again) it logs so and resumes ({@code onBack}); records that
 * waited past their bound meanwhile are rejected then, as expired. A topic missing for longer than the time given
 * ({@code shaper.topics.missing.stop.ms}) stops the instance ({@code onGivenUp}): an operator's restart, or its
 * orchestrator's, is then due. Checked every {@link #PERIOD} on a daemon thread.
 */
public final class OutputTopicsWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OutputTopicsWatch.class);
    /** What a changelog deleted costs, and what to do: said with the ERROR that names it. */
    private static final String CHANGELOG_LOST = " (compacted, with the input topic's partitions). It was a"
            + " changelog: the records queued before it was deleted are now in this instance's local state only, and"
            + " a crash or a move of its tasks to another instance loses them; let the queues drain"
            + " (shaper_queue_records 0) before this instance stops";
    /** How often the topics are described. */
    public static final Duration PERIOD = Duration.ofSeconds(2);

    private final List<String> topics;
    /** The changelog topics: missing only once seen. */
    private final List<String> changelogs;
    private final Runnable onLost;
    private final Runnable onBack;
    private final Runnable onGivenUp;
    private final Duration giveUpAfter;
    private final PeriodicTopicCheck checks;
    private final Map<String, Uuid> ids = new HashMap<>();
    /** What is wrong while a topic is missing; null while all are there. */
    private volatile String problem;
    /** The topic found missing, while one is. */
    private String missingTopic;
    /** When a topic was first seen missing ({@link System#nanoTime}), while one is. */
    private long missingSinceNanos;
    private boolean givenUp;

    private OutputTopicsWatch(Map<String, Object> adminConfig, List<String> topics, List<String> changelogs,
                              Runnable onLost, Runnable onBack, Runnable onGivenUp, Duration giveUpAfter) {
        this.topics = topics;
        this.changelogs = changelogs;
        this.onLost = onLost;
        this.onBack = onBack;
        this.onGivenUp = onGivenUp;
        this.giveUpAfter = giveUpAfter;
        this.checks = new PeriodicTopicCheck("shaper-output-topics-watch", adminConfig, PERIOD);
    }

    /**
     * Starts watching {@code topics}, which exist now (the start checked them), and {@code changelogs}, from when
     * each is first seen.
     *
     * @param onLost      run once when one of them goes missing: pauses processing
     * @param onBack      run once when all are there again: resumes it
     * @param onGivenUp   run once when one has been missing for {@code giveUpAfter}: stops the instance
     */
    public static OutputTopicsWatch start(Map<String, Object> adminConfig, List<String> topics,
                                          List<String> changelogs, Runnable onLost, Runnable onBack,
                                          Runnable onGivenUp, Duration giveUpAfter) {
        OutputTopicsWatch watch = new OutputTopicsWatch(adminConfig, List.copyOf(topics), List.copyOf(changelogs),
                onLost, onBack, onGivenUp, giveUpAfter);
        watch.checks.start(watch::check);
        return watch;
    }

    private void check() {
        try {
            String missing = null;
            for (String topic : topics) {
                if (!present(topic)) {
                    missing = topic;
                }
            }
            for (String changelog : changelogs) {
                if (!present(changelog) && ids.containsKey(changelog)) {
                    missing = changelog;
                }
            }
            if (missing != null && problem == null) {
                missingSinceNanos = System.nanoTime();
                missingTopic = missing;
                problem = "the topic " + missing + " is missing (deleted?); releases are paused until it is back";
                LOG.error("Output topics: {} is missing: it was deleted, or this instance cannot see it. Processing"
                        + " is paused (nothing is released or rejected; the queues keep their records) and this"
                        + " instance is not ready, until the topic exists again. Create it again as it was{}",
                        missing, changelogs.contains(missing) ? CHANGELOG_LOST : "");
                onLost.run();
            } else if (missing != null && !givenUp && System.nanoTime() - missingSinceNanos >= giveUpAfter.toNanos()) {
                givenUp = true;
                String next = changelogs.contains(missing)
                        ? "What it queued before the changelog was deleted goes with it; create the changelog again"
                                + " before the next start"
                        : "Its queues are in its changelogs: start it again once the topic exists";
                LOG.error("Output topics: {} has been missing for {} s (shaper.topics.missing.stop.ms); stopping this"
                        + " instance with exit code 4. {}", missing, giveUpAfter.toSeconds(), next);
                onGivenUp.run();
            } else if (missing == null && problem != null) {
                problem = null;
                LOG.info("Output topics: {} is there again, and every other watched topic; processing resumes",
                        missingTopic);
                onBack.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("Output topics: cannot describe {} now ({}); trying again in {} ms", topics, e.toString(),
                    PERIOD.toMillis());
        }
    }

    /** Whether {@code topic} exists now; notes its id, and logs when it differs from the last one seen. */
    private boolean present(String topic) throws Exception {
        TopicDescription description = checks.describe(topic);
        if (description == null) {
            return false;
        }
        Uuid id = description.topicId();
        Uuid before = ids.put(topic, id);
        if (before != null && !before.equals(id) && problem == null) {
            LOG.error("Output topics: {} was deleted and created again since the last look; what was written to it"
                    + " and not yet read went with it{}", topic, changelogs.contains(topic) ? CHANGELOG_LOST : "");
        }
        return true;
    }

    /** Why the instance is not ready, while a topic is missing; null otherwise. */
    public String problem() {
        return problem;
    }

    @Override
    public void close() {
        checks.close();
    }
}
