package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperConfig;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Options;

class BoundedRocksDbMemoryTest {

    private static Map<String, Object> configs(Properties props) {
        Map<String, Object> configs = new HashMap<>();
        props.forEach((k, v) -> configs.put(String.valueOf(k), v));
        return configs;
    }

    private static Options storeOptions() {
        Options options = new Options();
        options.setTableFormatConfig(new BlockBasedTableConfig());
        return options;
    }

    @Test
    void everyStoreOfAnInstanceSharesOneWriteBufferManagerAndCache() {
        Properties props = new ShaperConfig(Map.of()).streamsProperties();
        assertThat(props).containsEntry(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG,
                BoundedRocksDbMemory.class.getName());
        BoundedRocksDbMemory setter = new BoundedRocksDbMemory();
        try (Options first = storeOptions(); Options second = storeOptions()) {
            setter.setConfig("shaper-schedule", first, configs(props));
            setter.setConfig("shaper-key-state", second, configs(props));

            assertThat(first.writeBufferManager()).isNotNull().isSameAs(second.writeBufferManager());
            BlockBasedTableConfig table = (BlockBasedTableConfig) first.tableFormatConfig();
            assertThat(table.cacheIndexAndFilterBlocks()).isTrue();
        }
    }

    @Test
    void zeroLeavesKafkaStreamsDefaultsAndAUsersSetterWins() {
        assertThat(new ShaperConfig(Map.of(ShaperConfig.STATE_ROCKSDB_MEMORY_BYTES_CONFIG, "0")).streamsProperties())
                .doesNotContainKey(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG);
        assertThat(new ShaperConfig(Map.of(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, "com.example.Mine"))
                .streamsProperties()).containsEntry(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, "com.example.Mine");
    }
}
