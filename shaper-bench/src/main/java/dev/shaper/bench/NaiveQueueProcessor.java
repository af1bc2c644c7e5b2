package dev.shaper.bench;

import dev.shaper.ShaperHeaders;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.ContextualProcessor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The naive queue of {@link BenchApp#NAIVE_QUEUE}: each record is put into the store under a sequence number
 * (its key and value in one entry), and every tick of wall-clock time (the shaper's {@code shaper.shaping.tick.ms})
 * all stored records are forwarded in arrival order, each deleted on its own. The scan starts at the first
 * sequence number not yet released: from the store's start it would wade through every tombstone so far (a run
 * of 2,000,000 records slowed to a few records a second), a cost no queue would accept.
 */
final class NaiveQueueProcessor extends ContextualProcessor<byte[], byte[], byte[], byte[]> {

    static final String STORE = "naive-queue";
    private static final byte[] QUEUED = "1".getBytes(StandardCharsets.UTF_8);

    private final long tickMs;
    private KeyValueStore<Long, byte[]> store;
    private long sequence;
    private long firstQueued;

    NaiveQueueProcessor(long tickMs) {
        this.tickMs = tickMs;
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        super.init(context);
        store = context.getStateStore(STORE);
        // A task that starts again (a rebalance, an exactly-once revival) finds what it had stored: go on from it.
        try (KeyValueIterator<Long, byte[]> first = store.all(); KeyValueIterator<Long, byte[]> last = store.reverseAll()) {
            firstQueued = first.hasNext() ? first.next().key : 0;
            sequence = last.hasNext() ? last.next().key + 1 : 0;
        }
        context.schedule(Duration.ofMillis(tickMs), PunctuationType.WALL_CLOCK_TIME, now -> releaseAll());
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        byte[] key = record.key();
        byte[] value = record.value();
        store.put(sequence++, ByteBuffer.allocate(4 + key.length + value.length).putInt(key.length).put(key)
                .put(value).array());
    }

    private void releaseAll() {
        List<KeyValue<Long, byte[]>> stored = new ArrayList<>();
        try (KeyValueIterator<Long, byte[]> it = store.range(firstQueued, null)) {
            it.forEachRemaining(stored::add);
        }
        for (KeyValue<Long, byte[]> entry : stored) {
            ByteBuffer buffer = ByteBuffer.wrap(entry.value);
            byte[] key = new byte[buffer.getInt()];
            buffer.get(key);
            byte[] value = new byte[buffer.remaining()];
            buffer.get(value);
            Record<byte[], byte[]> out = new Record<>(key, value, context().currentSystemTimeMs());
            out.headers().add(ShaperHeaders.QUEUED_MS, QUEUED);
            context().forward(out);
            store.delete(entry.key);
            firstQueued = entry.key + 1;
        }
    }
}
