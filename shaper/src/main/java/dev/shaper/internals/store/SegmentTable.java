package dev.shaper.internals.store;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.NoSuchElementException;
import org.apache.kafka.common.utils.Bytes;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.KeyValueStore;

/**
 * The part of the schedule's RocksDB store that one {@link ScheduleBand} writes and reads, with keys as the band
 * sees them (a due and a record key, no prefix): the default band's keys as they are, from 0x80 on; another band's
 * keys behind its prefix.
 */
abstract class SegmentTable {

    protected final KeyValueStore<Bytes, byte[]> store;

    private SegmentTable(KeyValueStore<Bytes, byte[]> store) {
        this.store = store;
    }

    static SegmentTable of(KeyValueStore<Bytes, byte[]> store, ScheduleBand band) {
        return band.isDefault() ? new DefaultBand(store) : new Prefixed(store, band.prefix());
    }

    /** The band's entries from {@code from} to {@code to}, both inclusive, in order. */
    abstract KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to);

    abstract byte[] get(Bytes key);

    /** Writes {@code entries} in one batch; a null value removes its key. */
    abstract void putAll(List<KeyValue<Bytes, byte[]>> entries);

    /** The default band: the store's keys from 0x80 on, below which the other bands' prefixes lie. */
    private static final class DefaultBand extends SegmentTable {
        private static final Bytes FIRST = Bytes.wrap(new byte[] {ScheduleBand.DEFAULT_BAND_FIRST_BYTE});

        DefaultBand(KeyValueStore<Bytes, byte[]> store) {
            super(store);
        }

        @Override
        KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
            Bytes start = from.compareTo(FIRST) < 0 ? FIRST : from;
            return start.compareTo(to) > 0 ? EMPTY : store.range(start, to);
        }

        @Override
        byte[] get(Bytes key) {
            return store.get(key);
        }

        @Override
        void putAll(List<KeyValue<Bytes, byte[]>> entries) {
            store.putAll(entries);
        }
    }

    /** Another band: its keys behind its prefix. */
    private static final class Prefixed extends SegmentTable {
        private final byte[] prefix;

        Prefixed(KeyValueStore<Bytes, byte[]> store, byte[] prefix) {
            super(store);
            this.prefix = prefix;
        }

        private Bytes outer(Bytes key) {
            byte[] inner = key.get();
            byte[] full = Arrays.copyOf(prefix, prefix.length + inner.length);
            System.arraycopy(inner, 0, full, prefix.length, inner.length);
            return Bytes.wrap(full);
        }

        private Bytes inner(Bytes key) {
            byte[] full = key.get();
            return Bytes.wrap(Arrays.copyOfRange(full, prefix.length, full.length));
        }

        @Override
        KeyValueIterator<Bytes, byte[]> range(Bytes from, Bytes to) {
            KeyValueIterator<Bytes, byte[]> outer = store.range(outer(from), outer(to));
            return new KeyValueIterator<>() {
                @Override
                public boolean hasNext() {
                    return outer.hasNext();
                }

                @Override
                public KeyValue<Bytes, byte[]> next() {
                    KeyValue<Bytes, byte[]> entry = outer.next();
                    return KeyValue.pair(inner(entry.key), entry.value);
                }

                @Override
                public Bytes peekNextKey() {
                    return inner(outer.peekNextKey());
                }

                @Override
                public void close() {
                    outer.close();
                }
            };
        }

        @Override
        byte[] get(Bytes key) {
            return store.get(outer(key));
        }

        @Override
        void putAll(List<KeyValue<Bytes, byte[]>> entries) {
            List<KeyValue<Bytes, byte[]>> prefixed = new ArrayList<>(entries.size());
            for (KeyValue<Bytes, byte[]> entry : entries) {
                prefixed.add(KeyValue.pair(outer(entry.key), entry.value));
            }
            store.putAll(prefixed);
        }
    }

    private static final KeyValueIterator<Bytes, byte[]> EMPTY = new KeyValueIterator<>() {
        @Override
        public boolean hasNext() {
            return false;
        }

        @Override
        public KeyValue<Bytes, byte[]> next() {
            throw new NoSuchElementException();
        }

        @Override
        public Bytes peekNextKey() {
            throw new NoSuchElementException();
        }

        @Override
        public void close() {
        }
    };
}
