package dev.shaper.internals.cluster;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * What the topic watches share: a check run every period on a daemon thread of its own, and an Admin client, made at
 * the first check, to describe topics with.
 */
final class PeriodicTopicCheck implements AutoCloseable {

    private final Map<String, Object> adminConfig;
    private final Duration period;
    private final ScheduledExecutorService scheduler;
    /** Only the check's thread touches it. */
    private Admin admin;

    /** @param adminConfig the Admin client settings (bootstrap servers, security) */
    PeriodicTopicCheck(String threadName, Map<String, Object> adminConfig, Duration period) {
        this.adminConfig = adminConfig;
        this.period = period;
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        });
    }

    /** Runs {@code check} every period from one period on. */
    void start(Runnable check) {
        scheduler.scheduleWithFixedDelay(check, period.toMillis(), period.toMillis(), TimeUnit.MILLISECONDS);
    }

    /**
     * On the check's thread: {@code topic}'s description, or null if the topic does not exist; waits at most one
     * period for the answer.
     */
    TopicDescription describe(String topic) throws Exception {
        if (admin == null) {
            admin = Admin.create(adminConfig);
        }
        try {
            return admin.describeTopics(List.of(topic)).allTopicNames()
                    .get(period.toMillis(), TimeUnit.MILLISECONDS).get(topic);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return null;
            }
            throw e;
        }
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
        try {
            scheduler.awaitTermination(period.toMillis(), TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}
