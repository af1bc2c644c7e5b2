package dev.shaper.internals.cluster;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.function.IntSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;

/**
 * Counts the live instances of a shaper application (the local admission fallback divides each rate by it)
 * from the application's consumer group, so that it needs nothing but the Admin settings: admission can be built
 * before Kafka Streams. Each stream thread is a member whose client id is
 * {@code <client id prefix>-StreamThread-<n>-consumer}, and the prefix holds the instance's process id unless
 * {@code client.id} is set, so distinct prefixes are distinct instances.
 *
 * <p>A {@code client.id} shared by all instances makes them look like one, even with {@code application.server}
 * set: each instance would then admit the whole rate while Redis is down. Leave {@code client.id} unset or make
 * it unique per instance.
 *
 * <p>Blocking: call it from a background thread, not per record. Creating it connects to nothing; the Admin
 * client is created at the first count.
 */
public final class LiveInstanceCounter implements IntSupplier, AutoCloseable {

    private static final String THREAD_SUFFIX = "-StreamThread-";

    private final Map<String, Object> adminConfig;
    private final String applicationId;
    private final Duration timeout;
    private Admin admin;

    /**
     * @param adminConfig   the Admin client settings (bootstrap servers, security)
     * @param applicationId the application's {@code application.id}, which is its consumer group
     * @param timeout       the longest a count may wait for the group's description
     */
    public LiveInstanceCounter(Map<String, Object> adminConfig, String applicationId, Duration timeout) {
        this.adminConfig = adminConfig;
        this.applicationId = applicationId;
        this.timeout = timeout;
    }

    /**
     * The live instances in the application's group; 0 while the group has no member yet (this instance has not
     * joined), which counts as not counted. Throws if the group cannot be described.
     */
    @Override
    public synchronized int getAsInt() {
        if (admin == null) {
            admin = Admin.create(adminConfig);
        }
        try {
            ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(applicationId))
                    .describedGroups().get(applicationId).get(timeout.toMillis(), TimeUnit.MILLISECONDS);
            return instances(group.members());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while describing group " + applicationId, e);
        } catch (Exception e) {
            throw new IllegalStateException("cannot describe group " + applicationId + ": " + e, e);
        }
    }

    /** Distinct instances among the group's members, by the part of the client id before the thread suffix. */
    static int instances(Collection<MemberDescription> members) {
        Set<String> prefixes = new HashSet<>();
        for (MemberDescription member : members) {
            String clientId = member.clientId();
            int thread = clientId.indexOf(THREAD_SUFFIX);
            prefixes.add(thread >= 0 ? clientId.substring(0, thread) : clientId);
        }
        return prefixes.size();
    }

    @Override
    public synchronized void close() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
    }
}
