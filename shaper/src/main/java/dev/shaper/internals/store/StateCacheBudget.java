package dev.shaper.internals.store;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The bound on the key-state slots that the {@link KeyStateStore}s of one shaper instance keep in memory
 * together, whatever the number of tasks it runs; one per topology, shared by every stream thread.
 *
 * <p>Each store counts its slots here through its {@link Share}, and trims its own least recently used clean
 * slots when the instance is over the bound, as Kafka Streams' record cache evicts from the store being written:
 * a store belongs to one stream thread, so no thread ever touches another's slots. A store that had to trim while
 * holding less than its {@link #share()} reports the shortfall, and stores holding more than their share give
 * that much back at their next commit; otherwise a task that filled the cache and went quiet would keep it.
 *
 * <p>How far over the bound the count can go: slots changed since the last commit cannot be dropped before they
 * are written (nor, for a millisecond of virtual time, a state kept in memory only, see
 * {@link KeyStateStore#PERSIST_SLACK_NANOS}). A store writes its changes ahead of the commit once they exceed its
 * share, so together the changed slots stay below the bound again, and a commit interval's traffic in distinct
 * keys usually far below it.
 */
public final class StateCacheBudget {

    private final int maxKeys;
    private final AtomicLong cachedKeys = new AtomicLong();
    /** Stores that have held a slot since they were opened: the ones the bound is shared among. */
    private final AtomicInteger members = new AtomicInteger();
    /** Slots that stores below their share gave up to the bound, still to be given back by stores above it. */
    private final AtomicLong shortfall = new AtomicLong();

    /** @param maxKeys the most slots the instance's stores keep together (see {@code shaper.state.cache.max.keys}) */
    public StateCacheBudget(int maxKeys) {
        if (maxKeys < 1) {
            throw new IllegalArgumentException("maxKeys must be >= 1, got " + maxKeys);
        }
        this.maxKeys = maxKeys;
    }

    public int maxKeys() {
        return maxKeys;
    }

    /** The slots the instance's stores hold now, changed or not. */
    public long cachedKeys() {
        return cachedKeys.get();
    }

    /** What each store may hold whatever the others do: the bound split evenly among the stores using it. */
    public long share() {
        return Math.max(1, maxKeys / Math.max(1, members.get()));
    }

    /** A new store's account; the store's own thread uses it, and only that thread. */
    Share open() {
        return new Share();
    }

    /** One store's slots in the budget. Not thread-safe: a store is used by one stream thread at a time. */
    final class Share {
        private long held;
        private boolean member;

        /** Counts a new slot; returns by how many slots the instance is now over the bound (0 if it is not). */
        long add() {
            if (!member) {
                member = true;
                members.incrementAndGet();
            }
            held++;
            return Math.max(0, cachedKeys.incrementAndGet() - maxKeys);
        }

        /** Counts {@code count} slots dropped. */
        void remove(long count) {
            held -= count;
            cachedKeys.addAndGet(-count);
        }

        /** Gives every slot back and leaves the stores the bound is shared among (the store closed or was cleared). */
        void close() {
            remove(held);
            if (member) {
                member = false;
                members.decrementAndGet();
            }
        }

        long held() {
            return held;
        }

        /** By how many slots the instance is over the bound now (0 if it is not). */
        long over() {
            return Math.max(0, cachedKeys.get() - maxKeys);
        }

        /** This store had to trim {@code count} slots (or could not) while below its share: others must give back. */
        void reportShortfall(long count) {
            if (held < share()) {
                shortfall.getAndUpdate(s -> Math.min(maxKeys, s + count));
            }
        }

        /** How many slots this store should give back now: what others lacked, up to its excess over its share. */
        long claimGiveBack() {
            long excess = held - share();
            if (excess <= 0 || shortfall.get() == 0) {
                return 0;
            }
            long before = shortfall.getAndUpdate(s -> s - Math.min(s, excess));
            return Math.min(before, excess);
        }
    }
}
