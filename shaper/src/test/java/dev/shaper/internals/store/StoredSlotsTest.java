package dev.shaper.internals.store;

import static dev.shaper.internals.store.KeyStateFixtures.slot;
import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

class StoredSlotsTest {

    private final StoredSlots stored = new StoredSlots();
    private final KeyEntry a = slot("a", KeyState.ABSENT);
    private final KeyEntry b = slot("b", KeyState.ABSENT);

    @Test
    void shouldCountEachStoredSlotOnce() {
        stored.markStored(a);
        stored.markStored(a);
        stored.markStored(b);
        assertThat(stored.count()).isEqualTo(2);
        stored.markNotStored(a);
        stored.markNotStored(a);
        assertThat(stored.count()).isEqualTo(1);
        assertThat(a.inInner).isFalse();
        assertThat(b.inInner).isTrue();
    }

    @Test
    void shouldStartUntrackedAsAStoreThatMayHoldRestoredStates() {
        assertThat(stored.allTracked()).isFalse();
        assertThat(stored.mayHoldStates()).isTrue();
        stored.passStarted();
        stored.passEnded(false);
        assertThat(stored.allTracked()).isTrue();
        assertThat(stored.mayHoldStates()).isFalse();
        stored.markStored(a);
        assertThat(stored.mayHoldStates()).isTrue();
    }

    @Test
    void shouldBecomeUntrackedWhenAStoredSlotLeavesMemoryOnly() {
        stored.passStarted();
        stored.passEnded(false);
        stored.leftMemory(a); // its state was in memory only: nothing left behind
        assertThat(stored.allTracked()).isTrue();
        stored.markStored(b);
        stored.leftMemory(b);
        assertThat(stored.allTracked()).isFalse();
        assertThat(stored.count()).isZero();
        assertThat(stored.sweepOrder().hasNext()).isFalse();
    }

    @Test
    void shouldStayUntrackedAfterAPassThatMetAnUntrackedStateOrOutlivedALeavingSlot() {
        stored.passStarted();
        stored.passEnded(true);
        assertThat(stored.allTracked()).isFalse();

        stored.markStored(a);
        stored.passStarted();
        stored.leftMemory(a); // during the pass: its state may lie behind the pass's cursor
        stored.passEnded(false);
        assertThat(stored.allTracked()).isFalse();

        stored.reset();
        stored.passStarted();
        stored.passEnded(false);
        assertThat(stored.allTracked()).isTrue();
    }

    @Test
    void shouldLineTheStoredSlotsUpOldestFirstAndRequeueAtTheBack() {
        stored.markStored(a);
        stored.markStored(b);
        stored.markStored(a); // stored again: keeps its place
        List<KeyEntry> seen = new ArrayList<>();
        Iterator<KeyEntry> it = stored.sweepOrder();
        seen.add(it.next());
        it.remove();
        stored.requeue(seen);
        assertThat(stored.sweepOrder()).toIterable().containsExactly(b, a);
    }
}
