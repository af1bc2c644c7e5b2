package dev.shaper.internals.store;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.processor.StateStore;
import org.apache.kafka.streams.processor.StateStoreContext;
import org.apache.kafka.streams.query.Position;
import org.apache.kafka.streams.query.PositionBound;
import org.apache.kafka.streams.query.Query;
import org.apache.kafka.streams.query.QueryConfig;
import org.apache.kafka.streams.query.QueryResult;
import org.apache.kafka.streams.state.KeyValueStore;
import org.apache.kafka.streams.state.internals.CacheFlushListener;
import org.apache.kafka.streams.state.internals.CachedStateStore;

/**
 * A store layer that keeps the writes of one commit interval in memory and hands what survives to a logged
 * RocksDB store when the task commits. An entry that is written and removed again within the interval
 * (a record that queued briefly, a key that fell idle) never costs a RocksDB write or a changelog record.
 *
 * <p>Why this is crash-safe: Kafka Streams calls {@link #flushCache()} on every {@link CachedStateStore}
 * before it flushes the producer and commits the input offsets (and, under exactly-once, the transaction).
 * So at every commit the changelog holds the state of exactly the input that the commit covers; writes
 * still buffered when a task dies belong to input whose offsets were never committed and will be
 * processed again. Kafka's own record cache relies on the same hook; it is an internal interface, and
 * the crash tests guard our use of it.
 */
public abstract class WriteBehindStore implements StateStore, CachedStateStore<Bytes, byte[]> {

    protected final KeyValueStore<Bytes, byte[]> inner;

    protected WriteBehindStore(KeyValueStore<Bytes, byte[]> inner) {
        this.inner = inner;
    }

    /** Writes what the buffer holds to the inner store and empties the buffer. */
    protected abstract void writeBuffer();

    /** Forgets the buffer without writing it: its content belongs to input that will be processed again. */
    protected abstract void discardBuffer();

    @Override
    public String name() {
        return inner.name();
    }

    @Override
    public void init(StateStoreContext context, StateStore root) {
        discardBuffer();
        inner.init(context, root);
    }

    @Override
    public void flushCache() {
        writeBuffer();
    }

    @Override
    public void clearCache() {
        discardBuffer();
    }

    @Override
    public boolean setFlushListener(CacheFlushListener<Bytes, byte[]> listener, boolean sendOldValues) {
        return false;
    }

    @Override
    public void commit(Map<TopicPartition, Long> changelogOffsets) {
        inner.commit(changelogOffsets);
    }

    @Override
    public Long committedOffset(TopicPartition partition) {
        return inner.committedOffset(partition);
    }

    @Override
    public boolean managesOffsets() {
        return inner.managesOffsets();
    }

    /** A clean close was preceded by a commit, which flushed the buffer; any other close must not write. */
    @Override
    public void close() {
        discardBuffer();
        inner.close();
    }

    @Override
    public boolean persistent() {
        return inner.persistent();
    }

    @Override
    public boolean isOpen() {
        return inner.isOpen();
    }

    @Override
    public <R> QueryResult<R> query(Query<R> query, PositionBound positionBound, QueryConfig config) {
        return inner.query(query, positionBound, config);
    }

    @Override
    public Position getPosition() {
        return inner.getPosition();
    }
}
