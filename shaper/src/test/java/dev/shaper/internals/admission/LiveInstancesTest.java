package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class LiveInstancesTest {

    @Test
    void shouldAssumeTheMostInstancesUntilACountFindsTheGroupsMembers() {
        // Given: 8 input partitions, a group that has not formed yet
        AtomicInteger members = new AtomicInteger(0);
        LiveInstances live = new LiveInstances(members::get, 8);

        // When/Then: before any count, and after one that found no member, the local share is 1/8
        assertThat(live.count()).isEqualTo(8);
        live.refresh();
        assertThat(live.count()).isEqualTo(8);

        // And: once the group has members, their count
        members.set(3);
        live.refresh();
        assertThat(live.count()).isEqualTo(3);
    }

    @Test
    void shouldKeepTheLastCountWhenCountingFails() {
        AtomicInteger calls = new AtomicInteger();
        LiveInstances live = new LiveInstances(() -> {
            if (calls.incrementAndGet() > 1) {
                throw new IllegalStateException("no broker answers");
            }
            return 2;
        }, 8);
        live.refresh();
        live.refresh();
        assertThat(live.count()).isEqualTo(2);
    }
}
