package dev.shaper.internals.http;

import dev.shaper.internals.admission.AdmissionController;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.processor.StateRestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Liveness and readiness of one shaper instance, for {@code /health/live} and {@code /health/ready}.
 *
 * <p>Ready means: the instance has come up, and has not failed or been asked to stop since. It comes up when
 * Kafka Streams is RUNNING with no active store restoring from its changelog (RUNNING alone is not enough: with
 * Kafka Streams' state updater, stream threads run while some tasks still restore in the background). From then
 * on it stays ready through rebalances (REBALANCING) and through restores of tasks it takes over: every instance
 * rebalances when one joins or leaves, and a readiness that dropped then would take every instance of a rolling
 * restart out of its Service at once. Live means: Kafka Streams has not failed (an orchestrator should restart
 * an instance that is not live).
 *
 * <p>The detail also says when admission is on local buckets for want of Redis, and why (e.g. Redis refuses the
 * credentials): the instance still shapes and admits, so neither answer changes, but an operator must act.
 */
public final class StreamsHealth implements StateRestoreListener {

    private static final Logger LOG = LoggerFactory.getLogger(StreamsHealth.class);

    private final Set<TopicPartition> restoring = ConcurrentHashMap.newKeySet();
    private volatile Supplier<KafkaStreams.State> streamsState = () -> KafkaStreams.State.CREATED;
    /** The instance has been ready once since it started: rebalances and restores no longer take readiness away. */
    private volatile boolean cameUp;
    private volatile boolean stopping;
    private volatile AdmissionController admission;
    /** Each says why the instance must not be ready now, or null. */
    private final List<Supplier<String>> notReadyReasons = new CopyOnWriteArrayList<>();

    /** Registers as the restore listener of {@code streams}; call before {@link KafkaStreams#start}. */
    public void watch(KafkaStreams streams) {
        streams.setGlobalStateRestoreListener(this);
        watch(streams::state);
    }

    /** Reads the Kafka Streams state from {@code state} (tests give their own). */
    void watch(Supplier<KafkaStreams.State> state) {
        this.streamsState = state;
    }

    /** Adds the admission's state to {@link #describe} when it is on local buckets although Redis is configured. */
    public void watchAdmission(AdmissionController admission) {
        this.admission = admission;
    }

    /**
     * Not ready while {@code reason} says why (non-null): the input topic was repartitioned, an output topic is
     * missing.
     */
    public void notReadyWhile(Supplier<String> reason) {
        notReadyReasons.add(reason);
    }

    /** The first reason not to be ready now, or null. */
    private String notReadyReason() {
        for (Supplier<String> reason : notReadyReasons) {
            String why = reason.get();
            if (why != null) {
                return why;
            }
        }
        return null;
    }

    /** A stop was requested: not ready from now on, so that traffic and checks move elsewhere first. */
    public void stopping() {
        stopping = true;
    }

    public boolean isLive() {
        KafkaStreams.State state = state();
        return state != KafkaStreams.State.ERROR && state != KafkaStreams.State.PENDING_ERROR;
    }

    public boolean isReady() {
        if (stopping || notReadyReason() != null) {
            return false;
        }
        KafkaStreams.State state = state();
        if (!cameUp && state == KafkaStreams.State.RUNNING && restoring.isEmpty()) {
            cameUp = true;
            LOG.info("Ready: Kafka Streams runs and every store is restored");
        }
        return cameUp && (state == KafkaStreams.State.RUNNING || state == KafkaStreams.State.REBALANCING);
    }

    /** Tells the health that Kafka Streams changed state, so that coming up is noticed between two probes. */
    public void stateChanged() {
        isReady();
    }

    /** One line saying why the instance is or is not ready, and what is wrong with admission, if anything. */
    public String describe() {
        AdmissionController a = admission;
        String admissionDetail = a == null ? null : a.healthDetail();
        String streamsDetail = describeStreams();
        return admissionDetail == null ? streamsDetail : streamsDetail + "; " + admissionDetail;
    }

    private String describeStreams() {
        KafkaStreams.State state = state();
        if (stopping) {
            return "stopping (Kafka Streams " + state + ")";
        }
        String why = notReadyReason();
        if (why != null) {
            return "not ready: " + why + " (Kafka Streams " + state + ")";
        }
        if (!restoring.isEmpty()) {
            return "Kafka Streams " + state + ", restoring " + restoring.size() + " store partition(s)";
        }
        return "Kafka Streams " + state;
    }

    /** The Kafka Streams state, CREATED before {@link #watch}. */
    public KafkaStreams.State state() {
        return streamsState.get();
    }

    @Override
    public void onRestoreStart(TopicPartition partition, String storeName, long startingOffset, long endingOffset) {
        restoring.add(partition);
    }

    @Override
    public void onBatchRestored(TopicPartition partition, String storeName, long batchEndOffset, long numRestored) {
        // progress is not part of readiness
    }

    @Override
    public void onRestoreEnd(TopicPartition partition, String storeName, long totalRestored) {
        restoring.remove(partition);
        isReady(); // the last restore may be what the instance was waiting for to come up
    }

    @Override
    public void onRestoreSuspended(TopicPartition partition, String storeName, long totalRestored) {
        restoring.remove(partition); // the task moved away or closed: it no longer holds this instance back
    }
}
