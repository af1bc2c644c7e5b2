package dev.shaper.internals.http;

import org.apache.kafka.common.utils.Utils;

/**
 * The input partition of a record key, computed as the producer's default partitioner does for a keyed record
 * (murmur2 of the key bytes): the partition, and so the task and store partition, that holds the key's state.
 * Needed without {@code application.server}, when Kafka Streams shares no metadata, not even partitions.
 */
final class KeyPartition {

    private KeyPartition() {
    }

    /** The partition of {@code key} among {@code partitions}. */
    static int of(byte[] key, int partitions) {
        return Utils.toPositive(Utils.murmur2(key)) % partitions;
    }
}
