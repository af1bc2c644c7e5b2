package dev.shaper.reliability;

import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.store.KeyStateStore;
import dev.shaper.internals.store.StateCacheBudget;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.TaskId;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The heap one key state takes in the key-state cache, the figure behind {@code shaper.state.cache.max.keys}'s
 * sizing (docs/operations.md, docs/kubernetes.md): N keys looked up (a state read through, none found) or written
 * (a state that reaches RocksDB at the flush), over a RocksDB store, whose memory is off the heap. The heap is read
 * after collections, before and after, in this JVM; the figure is the difference per key.
 *
 * <p>Properties: {@code reliability.heap.keys} (200,000). Run it under the JVM the figure is for (the reliability
 * profile's runs use ZGC, which on Java 17 has no compressed references): e.g. with G1, {@code mvn -pl shaper test
 * -Dtest=KeyStateHeapRun -Dsurefire.failIfNoSpecifiedTests=false}.
 */
class KeyStateHeapRun {

    private static final Logger LOG = LoggerFactory.getLogger(KeyStateHeapRun.class);
    private final int keys = HeavyRuns.integer("reliability.heap.keys", 200_000);

    @Test
    void heapPerCachedKeyState() throws Exception {
        for (int keyBytes : new int[] {16, 36}) {
            for (boolean written : new boolean[] {false, true}) {
                LOG.info("{}-byte keys, {}: {} bytes of heap per key state", keyBytes,
                        written ? "written to RocksDB" : "looked up only", perKey(keyBytes, written));
            }
        }
    }

    private long perKey(int keyBytes, boolean written) throws Exception {
        Path dir = HeavyRuns.freshWorkDir("key-state-heap-" + keyBytes + (written ? "-written" : "-read"));
        Properties settings = new Properties();
        settings.put("state.dir", dir.toString());
        settings.put("application.id", "heap");
        settings.put("bootstrap.servers", "unused:9092");
        KeyValueStore<Bytes, byte[]> inner = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore("keys"),
                Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        KeyStateStore store = new KeyStateStore(inner, new StateCacheBudget(keys * 2));
        store.init(new MockProcessorContext<>(settings, new TaskId(0, 0), dir.toFile()).getStateStoreContext(), store);
        try {
            store.setVirtualNow(0);
            long before = usedHeap();
            for (int i = 0; i < keys; i++) {
                byte[] key = key(i, keyBytes);
                if (written) {
                    store.put(key, new KeyState(10_000_000_000L, 0, 0, 0)); // busy 10 s from now: stored
                } else {
                    store.get(key);
                }
            }
            if (written) {
                store.flushCache();
            }
            long after = usedHeap();
            if (store.cachedKeyCount() != keys) {
                throw new IllegalStateException("the cache holds " + store.cachedKeyCount() + " states, not " + keys);
            }
            return (after - before) / keys;
        } finally {
            store.close();
        }
    }

    private static byte[] key(int i, int length) {
        byte[] key = new byte[length];
        byte[] digits = String.format("%0" + length + "d", i).getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(digits, digits.length - length, key, 0, length);
        return key;
    }

    private static long usedHeap() throws InterruptedException {
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(200); // a measurement tool: let the collector settle
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }
}
