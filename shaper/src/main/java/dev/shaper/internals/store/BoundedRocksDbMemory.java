package dev.shaper.internals.store;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.streams.state.RocksDBConfigSetter;
import org.rocksdb.BlockBasedTableConfig;
import org.rocksdb.Cache;
import org.rocksdb.LRUCache;
import org.rocksdb.Options;
import org.rocksdb.WriteBufferManager;

/**
 * Bounds the off-heap memory of all RocksDB stores of an instance together, as Kafka Streams' "bounded memory"
 * recipe does: one block cache shared by every store, which the stores' memtables are charged to as well (through
 * one write buffer manager), and which also holds the index and filter blocks. By Kafka Streams' defaults each
 * store has its own 50 MB block cache and up to three 16 MB memtables, so the memory of an instance grows with its
 * partitions (two stores each), and an instance with many partitions outgrows any container sized for its heap.
 *
 * <p>The cache and the manager live as long as the JVM, one pair per configured size: the stores of an instance
 * come and go with its tasks, and closing the shared objects with one of them would pull them from under the
 * others.
 */
public final class BoundedRocksDbMemory implements RocksDBConfigSetter {

    /** The setting that sizes the shared cache; the shaper copies it among the settings Kafka Streams passes on. */
    public static final String BYTES_CONFIG = "shaper.state.rocksdb.memory.bytes";
    /** The share of the cache that memtables may take; the rest holds data, index and filter blocks. */
    static final double MEMTABLE_SHARE = 0.5;
    /** The share of the cache kept for index and filter blocks, which every read needs. */
    private static final double HIGH_PRIORITY_SHARE = 0.1;

    private record Shared(Cache cache, WriteBufferManager writeBuffers) {
    }

    private static final Map<Long, Shared> SHARED = new ConcurrentHashMap<>();

    @Override
    public void setConfig(String storeName, Options options, Map<String, Object> configs) {
        Object setting = configs.get(BYTES_CONFIG);
        if (setting == null) {
            return; // not configured: Kafka Streams' own settings
        }
        long bytes = (Long) ConfigDef.parseType(BYTES_CONFIG, setting, ConfigDef.Type.LONG);
        Shared shared = SHARED.computeIfAbsent(bytes, BoundedRocksDbMemory::create);
        BlockBasedTableConfig table = (BlockBasedTableConfig) options.tableFormatConfig();
        table.setBlockCache(shared.cache());
        table.setCacheIndexAndFilterBlocks(true);
        table.setCacheIndexAndFilterBlocksWithHighPriority(true);
        table.setPinTopLevelIndexAndFilter(true);
        options.setWriteBufferManager(shared.writeBuffers());
        options.setTableFormatConfig(table);
    }

    private static Shared create(long bytes) {
        Cache cache = new LRUCache(bytes, -1, false, HIGH_PRIORITY_SHARE);
        return new Shared(cache, new WriteBufferManager((long) (bytes * MEMTABLE_SHARE), cache));
    }

    @Override
    public void close(String storeName, Options options) {
        // The cache and the write buffer manager are shared with the instance's other stores: see the class doc.
    }
}
