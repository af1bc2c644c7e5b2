package dev.shaper.internals.store;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import org.apache.kafka.common.utils.Bytes;

/**
 * The key-state slots a {@link KeyStateStore} keeps in memory: the least recently used clean ones are the first to
 * go when the instance's {@link StateCacheBudget} is over its bound, and the slots changed since the last commit are
 * listed, so that a commit's cost follows the changes, not the cache size.
 */
final class KeyCache {

    private final StateCacheBudget budget;
    /** This cache's slots in {@link #budget}: every slot added to or removed from {@link #slots} is counted. */
    private final StateCacheBudget.Share share;
    private final StoredSlots stored;
    /** By record key (no copy, no prefix: the hot path builds no store key). Access-ordered, for the LRU. */
    private final LinkedHashMap<Bytes, KeyEntry> slots = new LinkedHashMap<>(1024, 0.75f, true);
    private final List<KeyEntry> changed = new ArrayList<>();
    /** The task's wall-clock time, for the keys' windows of releases. */
    private long wallNowMs = Long.MIN_VALUE;

    /** @param stored told when a slot whose state is stored leaves memory */
    KeyCache(StateCacheBudget budget, StoredSlots stored) {
        this.budget = budget;
        this.share = budget.open();
        this.stored = stored;
    }

    /** The task's wall-clock time now: a slot whose window of releases holds anything then is not dropped. */
    void setWallNow(long wallMs) {
        wallNowMs = wallMs;
    }

    /** The slot of {@code recordKey}, or null; counts as a use. */
    KeyEntry get(Bytes recordKey) {
        return slots.get(recordKey);
    }

    /**
     * Adds the slot a lookup is about to hand out; if the instance is now over its bound, drops others (never this
     * one: its caller will update it).
     */
    void add(Bytes recordKey, KeyEntry slot, long virtualNowNanos) {
        slots.put(recordKey, slot);
        long over = share.add();
        if (over > 0) {
            dropCleanSlots(over, slot, virtualNowNanos);
            share.reportShortfall(over);
        }
    }

    /**
     * Lists a slot that has just become dirty. Returns whether the changed slots are now past this store's share of
     * the bound: they cannot be dropped, so the store must write them ahead of the commit to keep them bounded.
     */
    boolean addChanged(KeyEntry slot) {
        changed.add(slot);
        return changed.size() > budget.share();
    }

    /** The slots changed since the last commit; {@link #clearChanged} once they are written. */
    List<KeyEntry> changed() {
        return changed;
    }

    void clearChanged() {
        changed.clear();
    }

    int size() {
        return slots.size();
    }

    /**
     * At a commit: drops what the instance holds over its bound (the changes just written are clean now, so they may
     * go), or at least what this store owes stores that lacked room (see {@link StateCacheBudget}).
     */
    void trimAtCommit(long virtualNowNanos) {
        long over = share.over();
        long count = Math.max(over, share.claimGiveBack());
        if (count > 0) {
            dropCleanSlots(count, null, virtualNowNanos);
        }
        if (over > 0) {
            share.reportShortfall(over);
        }
    }

    /** Forgets every slot and gives the share of the bound back to the instance's other stores. */
    void clear() {
        slots.clear();
        share.close();
        changed.clear();
    }

    /**
     * Drops up to {@code count} of the least recently used clean slots. Not a slot whose state lives in memory only
     * and still matters (one a commit did not write because it falls idle within
     * {@link KeyStateStore#PERSIST_SLACK_NANOS}): the inner store could not give it back, and forgetting it would let
     * its key's next record leave early. Nor {@code handedOut}, the slot a lookup is about to return: its caller will
     * update it, and an update of a slot no longer in memory would be lost until the commit and then written behind
     * the layer's back. Nor a slot whose window of releases still holds a release (a second at most): the store keeps
     * no window, and one read back must assume the key released at full rate until then, which held back, at every
     * tick, keys whose slots left memory between two ticks, and whose real window alone keeps a key to rate + 1 a
     * second when its releases bunch (late ticks, made up time). So the bound gives way to the keys that released
     * in the last second.
     */
    private void dropCleanSlots(long count, KeyEntry handedOut, long virtualNowNanos) {
        long dropped = 0;
        Iterator<KeyEntry> it = slots.values().iterator();
        while (dropped < count && it.hasNext()) {
            KeyEntry slot = it.next();
            if (slot != handedOut && !slot.dirty && (slot.inInner || slot.state.isIdleAt(virtualNowNanos))
                    && (slot.releases() == null || slot.releases().isEmptyAt(wallNowMs))) {
                it.remove();
                dropped++;
                stored.leftMemory(slot);
            }
        }
        share.remove(dropped);
    }
}
