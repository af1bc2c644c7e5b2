package dev.shaper.internals.store;

import java.util.Collection;
import java.util.Iterator;
import java.util.LinkedHashSet;

/**
 * Which slots of a {@link KeyStateStore} have their state in the inner store, and whether the inner store may hold
 * states that no slot knows of ("untracked"): after a restore, or once a stored slot left memory. While nothing is
 * untracked, the {@link IdleSweeper} need not iterate RocksDB (tombstones included), and a commit with no stored slot
 * need not write the virtual time.
 *
 * <p>Every change of a slot's {@code inInner} goes through {@link #markStored} or {@link #markNotStored}, and a stored
 * slot that leaves memory is reported through {@link #leftMemory}, so {@link #count()} stays exact.
 */
final class StoredSlots {

    /**
     * Slots whose state the inner store holds and that were clean when added, oldest first: the only states that can
     * fall idle in the inner store while nothing is untracked. Entries that have since become dirty or left the inner
     * store are skipped and removed by the sweep.
     */
    private final LinkedHashSet<KeyEntry> sweepOrder = new LinkedHashSet<>();
    /** How many slots have their state in the inner store. */
    private int count;
    private boolean untracked = true;
    /** Counts the events that set {@link #untracked}, so that a pass knows whether one happened meanwhile. */
    private long untrackedEvents;
    private long passStartUntrackedEvents;

    /** The slot's state is in the inner store (again): the sweep looks at it, and the count counts it once. */
    void markStored(KeyEntry slot) {
        if (!slot.inInner) {
            slot.inInner = true;
            count++;
        }
        sweepOrder.add(slot);
    }

    /** The slot's state has left the inner store. */
    void markNotStored(KeyEntry slot) {
        if (slot.inInner) {
            slot.inInner = false;
            count--;
        }
    }

    /** The slot left memory; if the inner store holds its state, no slot knows of that state any more. */
    void leftMemory(KeyEntry slot) {
        if (slot.inInner) {
            sweepOrder.remove(slot);
            count--;
            untracked = true;
            untrackedEvents++;
        }
    }

    /** The slots are gone and the inner store holds what was restored, which no slot knows of. */
    void reset() {
        sweepOrder.clear();
        count = 0;
        untracked = true;
        untrackedEvents++;
    }

    int count() {
        return count;
    }

    /** Whether every state in the inner store has a slot, so that the slots alone tell which states are stored. */
    boolean allTracked() {
        return !untracked;
    }

    /** Whether the inner store may hold a key state. */
    boolean mayHoldStates() {
        return untracked || count > 0;
    }

    /** The stored slots, oldest first; the sweep removes each it looks at and {@link #requeue}s those still stored. */
    Iterator<KeyEntry> sweepOrder() {
        return sweepOrder.iterator();
    }

    /** Puts slots still stored at the back of the sweep's line. */
    void requeue(Collection<KeyEntry> slots) {
        sweepOrder.addAll(slots);
    }

    /** A sweep pass over the whole inner store starts. */
    void passStarted() {
        passStartUntrackedEvents = untrackedEvents;
    }

    /**
     * A sweep pass over the whole inner store ended: if it met only states that have a slot (or removed them), and no
     * stored slot left memory meanwhile, the slots know every stored state.
     */
    void passEnded(boolean sawUntracked) {
        untracked = sawUntracked || untrackedEvents != passStartUntrackedEvents;
    }
}
