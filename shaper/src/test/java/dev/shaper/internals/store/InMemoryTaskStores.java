package dev.shaper.internals.store;

import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.api.MockProcessorContext;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.Stores;

/** A task's two stores over in-memory inner stores, opened, for tests of what the task queues. */
record InMemoryTaskStores(ScheduleStore schedule, KeyStateStore keyStates) {

    /** @param maxBuffered queued records the schedule store holds in memory before it writes them early */
    static InMemoryTaskStores open(int maxBuffered) {
        KeyValueStore<Bytes, byte[]> scheduleInner = Stores.keyValueStoreBuilder(
                Stores.inMemoryKeyValueStore("schedule"), Serdes.Bytes(), Serdes.ByteArray())
                .withLoggingDisabled().withCachingDisabled().build();
        ScheduleStore schedule = new ScheduleStore(scheduleInner, maxBuffered, Long.MAX_VALUE, 1_048_588);
        MockProcessorContext<Object, Object> context = new MockProcessorContext<>();
        schedule.init(context.getStateStoreContext(), schedule);
        KeyValueStore<Bytes, byte[]> keyInner = Stores.keyValueStoreBuilder(Stores.inMemoryKeyValueStore("keys"),
                Serdes.Bytes(), Serdes.ByteArray()).withLoggingDisabled().withCachingDisabled().build();
        KeyStateStore keyStates = new KeyStateStore(keyInner, new StateCacheBudget(100));
        keyStates.init(context.getStateStoreContext(), keyStates);
        return new InMemoryTaskStores(schedule, keyStates);
    }
}
