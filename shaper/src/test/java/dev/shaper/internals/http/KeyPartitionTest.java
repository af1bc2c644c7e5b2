package dev.shaper.internals.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.producer.internals.BuiltInPartitioner;
import org.junit.jupiter.api.Test;

class KeyPartitionTest {

    @Test
    void shouldPickThePartitionTheProducerPicksForAKeyedRecord() {
        for (int partitions : new int[] {1, 2, 3, 32}) {
            for (int i = 0; i < 1_000; i++) {
                byte[] key = ("key-" + i).getBytes(StandardCharsets.UTF_8);
                assertThat(KeyPartition.of(key, partitions)).as("key-%d of %d", i, partitions)
                        .isEqualTo(BuiltInPartitioner.partitionForKey(key, partitions));
            }
            assertThat(KeyPartition.of(new byte[0], partitions))
                    .isEqualTo(BuiltInPartitioner.partitionForKey(new byte[0], partitions));
        }
    }
}
