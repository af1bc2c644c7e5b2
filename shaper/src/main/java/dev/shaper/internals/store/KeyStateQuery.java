package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import java.util.Set;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.query.FailureReason;
import org.apache.kafka.streams.query.KeyQuery;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.query.StateQueryRequest;
import org.apache.kafka.streams.query.StateQueryResult;

/**
 * Reads one key's state and its task's virtual time from a {@link KeyStateStore} of this instance through
 * Kafka Streams' interactive queries (IQv2), from any thread.
 *
 * <p>The query reads the logged RocksDB store under the write-behind layer, so it sees the state as of the
 * task's last commit (by default every 100 ms under exactly-once), never a half-processed record.
 */
public final class KeyStateQuery {

    /** What the store held for a key at the last commit. */
    public record Snapshot(KeyState state, Long virtualNowNanos) {
    }

    /** The outcome of a query on one partition. */
    public sealed interface Outcome {
        /** The partition is active here and holds state for the key. */
        record Found(Snapshot snapshot) implements Outcome { }

        /** The partition is active here and holds no state for the key (idle, evicted or never seen). */
        record Absent() implements Outcome { }

        /** The partition is not active here (moved, restoring, or this instance is not running). */
        record NotHere(String why) implements Outcome { }
    }

    private KeyStateQuery() {
    }

    /** Queries the store {@code storeName} on {@code partition} for {@code recordKey}. */
    public static Outcome query(KafkaStreams streams, String storeName, int partition, byte[] recordKey) {
        StateQueryResult<byte[]> state = streams.query(StateQueryRequest.inStore(storeName)
                .withQuery(KeyQuery.<Bytes, byte[]>withKey(KeyStateKeys.of(recordKey)))
                .withPartitions(Set.of(partition)).requireActive());
        QueryResult<byte[]> result = state.getPartitionResults().get(partition);
        if (result == null) {
            return new Outcome.NotHere("partition " + partition + " is not hosted by this instance");
        }
        if (result.isFailure()) {
            // Every reason but an unknown query type is a store that is moving, closing or not here: retry.
            if (result.getFailureReason() == FailureReason.UNKNOWN_QUERY_TYPE) {
                throw new IllegalStateException("the key-state store does not answer key queries: "
                        + result.getFailureMessage());
            }
            return new Outcome.NotHere(result.getFailureReason() + ": " + result.getFailureMessage());
        }
        if (result.getResult() == null) {
            return new Outcome.Absent();
        }
        KeyState keyState = KeyStateCodec.decode(result.getResult());
        StateQueryResult<byte[]> clock = streams.query(StateQueryRequest.inStore(storeName)
                .withQuery(KeyQuery.<Bytes, byte[]>withKey(KeyStateKeys.CLOCK))
                .withPartitions(Set.of(partition)).requireActive());
        QueryResult<byte[]> clockResult = clock.getPartitionResults().get(partition);
        Long virtualNow = clockResult == null || clockResult.isFailure() || clockResult.getResult() == null
                ? null : StoredVirtualClock.decode(clockResult.getResult());
        return new Outcome.Found(new Snapshot(keyState, virtualNow));
    }
}
