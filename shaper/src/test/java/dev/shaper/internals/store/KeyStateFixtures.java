package dev.shaper.internals.store;

import dev.shaper.internals.shaping.KeyState;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/** What the tests of the key-state store's parts build: an inner store, and slots outside any cache. */
final class KeyStateFixtures {

    /** A millisecond of virtual time. */
    static final long MS = 1_000_000L;

    private KeyStateFixtures() {
    }

    /** An initialised in-memory store in place of the logged RocksDB one. */
    static KeyValueStore<Bytes, byte[]> innerStore(String name) {
        KeyValueStore<Bytes, byte[]> inner = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore(name),
                Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        inner.init(new MockProcessorContext<>().getStateStoreContext(), inner);
        return inner;
    }

    static byte[] k(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    /** An entry that no store knows of. */
    static KeyEntry slot(String recordKey, KeyState state) {
        return new KeyEntry(KeyStateKeys.of(k(recordKey)), state, entry -> { });
    }

    /** Stores {@code state} under {@code recordKey}, as a commit or a restore would. */
    static void putStored(KeyValueStore<Bytes, byte[]> inner, String recordKey, KeyState state) {
        inner.put(KeyStateKeys.of(k(recordKey)), KeyStateCodec.encode(state));
    }
}
