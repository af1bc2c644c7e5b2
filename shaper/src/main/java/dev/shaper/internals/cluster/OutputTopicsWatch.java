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
 * Watches the topics the shaper writes its records to (the output and the rejected topic): a topic deleted under it,
 * or deleted and created again, takes with it what was written and is not yet read, and a release while it is gone
 * goes nowhere the database writers read (or, on a broker that creates topics on demand, to a topic made by the
 * producer's request). Once one is missing the watch logs an ERROR naming it, takes readiness away and pauses the
 * application's processing ({@code onLost}): nothing is released or rejected meanwhile, the queues keep what they
 * hold. When it is back (the same topic, or one created again) it logs so and resumes ({@code onBack}); records that
 * waited past their bound meanwhile are rejected then, as expired. A topic missing for longer than the time given
 * ({@code shaper.topics.missing.stop.ms}) stops the instance ({@code onGivenUp}): an operator's restart, or its
 * orchestrator's, is then due. Checked every {@link #PERIOD} on a daemon thread.
 */
public final class OutputTopicsWatch implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(OutputTopicsWatch.class);
    /** How often the topics are described. */
    public static final Duration PERIOD = Duration.ofSeconds(2);

    private final List<String> topics;
    private final Runnable onLost;
    private final Runnable onBack;
    private final Runnable onGivenUp;
    private final Duration giveUpAfter;
    private final PeriodicTopicCheck checks;
    private final Map<String, Uuid> ids = new HashMap<>();
    /** What is wrong while a topic is missing; null while all are there. */
    private volatile String problem;
    /** When a topic was first seen missing ({@link System#nanoTime}), while one is. */
    private long missingSinceNanos;
    private boolean givenUp;

    private OutputTopicsWatch(Map<String, Object> adminConfig, List<String> topics, Runnable onLost,
                              Runnable onBack, Runnable onGivenUp, Duration giveUpAfter) {
        this.topics = topics;
        this.onLost = onLost;
        this.onBack = onBack;
        this.onGivenUp = onGivenUp;
        this.giveUpAfter = giveUpAfter;
        this.checks = new PeriodicTopicCheck("shaper-output-topics-watch", adminConfig, PERIOD);
    }

    /**
     * Starts watching {@code topics}, which exist now (the start checked them).
     *
     * @param onLost run once when one of them goes missing: pauses processing
     * @param onBack      run once when all are there again: resumes it
     * @param onGivenUp   run once when one has been missing for {@code giveUpAfter}: stops the instance
     */
    public static OutputTopicsWatch start(Map<String, Object> adminConfig, List<String> topics, Runnable onLost,
                                          Runnable onBack, Runnable onGivenUp, Duration giveUpAfter) {
        OutputTopicsWatch watch = new OutputTopicsWatch(adminConfig, List.copyOf(topics), onLost, onBack,
                onGivenUp, giveUpAfter);
        watch.checks.start(watch::check);
        return watch;
    }

    private void check() {
        try {
            String missing = null;
            for (String topic : topics) {
                TopicDescription description = checks.describe(topic);
                if (description == null) {
                    missing = topic;
                } else {
                    Uuid id = description.topicId();
                    Uuid before = ids.put(topic, id);
                    if (before != null && !before.equals(id) && problem == null) {
                        LOG.error("Output topics: {} was deleted and created again since the last look; what was"
                                + " written to it and not yet read went with it", topic);
                    }
                }
            }
            if (missing != null && problem == null) {
                missingSinceNanos = System.nanoTime();
                problem = "the topic " + missing + " is missing (deleted?); releases are paused until it is back";
                LOG.error("Output topics: {} is missing: it was deleted, or this instance cannot see it. Processing"
                        + " is paused (nothing is released or rejected; the queues keep their records) and this"
                        + " instance is not ready, until the topic exists again. Create it again as it was",
                        missing);
                onLost.run();
            } else if (missing != null && !givenUp && System.nanoTime() - missingSinceNanos >= giveUpAfter.toNanos()) {
                givenUp = true;
                LOG.error("Output topics: {} has been missing for {} s (shaper.topics.missing.stop.ms); stopping this"
                        + " instance with exit code 4. Its queues are in its changelogs: start it again once the"
                        + " topic exists", missing, giveUpAfter.toSeconds());
                onGivenUp.run();
            } else if (missing == null && problem != null) {
                problem = null;
                LOG.info("Output topics: {} all there again; processing resumes", topics);
                onBack.run();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.debug("Output topics: cannot describe {} now ({}); trying again in {} ms", topics, e.toString(),
                    PERIOD.toMillis());
        }
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
