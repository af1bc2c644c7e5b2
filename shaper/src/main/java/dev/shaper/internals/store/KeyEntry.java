package dev.shaper.internals.store;

import dev.shaper.internals.admission.KeyAdmission;
import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.ReleaseWindow;
import org.apache.kafka.common.utils.Bytes;

/**
 * One key of a task, as the key-state layer holds it in memory: its leaky-bucket state, and what admission keeps for
 * the key. Found by one lookup per record ({@link TaskQueues#entry}); valid until the next call of the store.
 */
public final class KeyEntry {

    /** Told when an entry changes for the first time since the last commit. */
    interface ChangeListener {
        void firstChange(KeyEntry entry);
    }

    /** The key in the inner store (with its prefix). */
    final Bytes key;
    private final ChangeListener listener;
    KeyState state;
    /** Changed since the last commit: listed in the {@link KeyCache}'s changed entries, and not droppable. */
    boolean dirty;
    /**
     * Whether the inner store holds an entry for this key (so dropping the state needs a delete); changed only
     * through {@link StoredSlots}.
     */
    boolean inInner;
    /** What admission keeps for this key, created at its first use; see {@link #admission()}. */
    private KeyAdmission admission;
    /**
     * The band the key's queued records wait in, fixed when its queue starts (see {@link TaskQueues#pinned}); null
     * when unknown: a state stored before bands were kept. Meaningless while nothing is queued.
     */
    ScheduleBand queuedBand;
    /**
     * The key's releases over the last second, kept while they may still hold one back: from the first record it
     * queued until a second after its last release. In memory only; a key whose entry is dropped, or a restart,
     * starts from {@link ReleaseWindow#assumingFullRate}.
     */
    private ReleaseWindow releases;

    KeyEntry(Bytes key, KeyState state, ChangeListener listener) {
        this.key = key;
        this.state = state;
        this.listener = listener;
    }

    public KeyState state() {
        return state;
    }

    /** The band the key's queued records wait in; null when nothing is queued or it is not known. */
    public ScheduleBand queuedBand() {
        return state.queuedRecords() > 0 ? queuedBand : null;
    }

    /**
     * What admission keeps for this key beside its state, so that it need not look the key up in a map of its own.
     * In memory only: never persisted, and gone when the entry is dropped, so admission must find it again then.
     */
    public KeyAdmission admission() {
        if (admission == null) {
            admission = new KeyAdmission();
        }
        return admission;
    }

    /** The key's window of releases, or null when it has none: nothing it released may hold it back. */
    public ReleaseWindow releases() {
        return releases;
    }

    /** The key's window of releases from now on; null forgets it. */
    public void releases(ReleaseWindow window) {
        releases = window;
    }

    /** The key's state becomes {@code newState}, written at the next commit (or earlier, see {@link KeyCache}). */
    public void update(KeyState newState) {
        state = newState;
        if (!dirty) {
            dirty = true;
            listener.firstChange(this);
        }
    }
}
