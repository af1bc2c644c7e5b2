package dev.shaper.internals.store;

import java.util.Map;
import java.util.function.Function;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.StoreBuilder;
import org.apache.kafka.streams.state.Stores;

/**
 * Builds a {@link WriteBehindStore} over a persistent, changelogged RocksDB store. Kafka's record cache is
 * disabled underneath: the write-behind layer does that job, with knowledge of what may be dropped.
 */
public final class WriteBehindStoreBuilder<T extends WriteBehindStore> implements StoreBuilder<T> {

    private final StoreBuilder<KeyValueStore<Bytes, byte[]>> inner;
    private final Function<KeyValueStore<Bytes, byte[]>, T> layer;

    public WriteBehindStoreBuilder(String name, Function<KeyValueStore<Bytes, byte[]>, T> layer) {
        this.inner = Stores.keyValueStoreBuilder(Stores.persistentKeyValueStore(name), Serdes.Bytes(),
                Serdes.ByteArray()).withCachingDisabled();
        this.layer = layer;
    }

    /** The write-behind layer is the cache; Kafka's record cache stays off whatever is asked. */
    @Override
    public StoreBuilder<T> withCachingEnabled() {
        return this;
    }

    @Override
    public StoreBuilder<T> withCachingDisabled() {
        return this;
    }

    @Override
    public StoreBuilder<T> withLoggingEnabled(Map<String, String> config) {
        inner.withLoggingEnabled(config);
        return this;
    }

    /** The queues must survive a crash, so the changelog cannot be switched off. */
    @Override
    public StoreBuilder<T> withLoggingDisabled() {
        throw new UnsupportedOperationException("the shaper's stores must be changelogged");
    }

    @Override
    public T build() {
        return layer.apply(inner.build());
    }

    @Override
    public Map<String, String> logConfig() {
        return inner.logConfig();
    }

    @Override
    public boolean loggingEnabled() {
        return inner.loggingEnabled();
    }

    @Override
    public String name() {
        return inner.name();
    }
}
