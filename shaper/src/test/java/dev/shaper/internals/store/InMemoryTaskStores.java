package dev.shaper.internals.store;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/**
 * A task's two stores over in-memory inner stores, opened, for tests of what the task queues; the inner stores stand
 * for RocksDB, what a task restarted after a crash finds ({@link #reopened}).
 */
record InMemoryTaskStores(ScheduleStore schedule, KeyStateStore keyStates, KeyValueStore<Bytes, byte[]> scheduleInner,
                          KeyValueStore<Bytes, byte[]> keyInner, int maxBuffered, int maxKeys) {

    /** @param maxBuffered queued records the schedule store holds in memory before it writes them early */
    static InMemoryTaskStores open(int maxBuffered) {
        return open(maxBuffered, 100);
    }

    /** @param maxKeys key states the stores keep in memory (the instance's bound, which this store has alone) */
    static InMemoryTaskStores open(int maxBuffered, int maxKeys) {
        KeyValueStore<Bytes, byte[]> scheduleInner = Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("schedule"), Serdes.Bytes(), Serdes.ByteArray())
                .withLoggingDisabled().withCachingDisabled().build();
        KeyValueStore<Bytes, byte[]> keyInner = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("keys"),
                Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        return over(scheduleInner, keyInner, maxBuffered, maxKeys);
    }

    /**
     * New stores over the same inner stores, as a task restarted after a crash opens them: what the old ones held in
     * memory and had not written is gone.
     */
    InMemoryTaskStores reopened() {
        return over(scheduleInner, keyInner, maxBuffered, maxKeys);
    }

    private static InMemoryTaskStores over(KeyValueStore<Bytes, byte[]> scheduleInner,
                                           KeyValueStore<Bytes, byte[]> keyInner, int maxBuffered, int maxKeys) {
        ScheduleStore schedule = new ScheduleStore(scheduleInner, maxBuffered, Long.MAX_VALUE, 1_048_588);
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        schedule.init(context.getStateStoreContext(), schedule);
        KeyStateStore keyStates = new KeyStateStore(keyInner, new StateCacheBudget(maxKeys));
        keyStates.init(context.getStateStoreContext(), keyStates);
        return new InMemoryTaskStores(schedule, keyStates, scheduleInner, keyInner, maxBuffered, maxKeys);
    }
}
