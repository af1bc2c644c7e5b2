package dev.shaper.internals.capacity;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The pool as a ceiling on the instance's releases in every second, and what the instance holds for the leases. */
class CapacityPoolCeilingTest {

    private static final long T0 = 1_000_000L;

    private final AtomicLong wallMs = new AtomicLong(T0);
    /** 400/s over 8 partitions: 50/s per task; two tasks pool 100/s. */
    private final CapacityPool pool = new CapacityPool(400, 8, wallMs::get);

    /** Releases one unit at {@code atMs} whenever the ceiling allows, as many as {@code tries}; how many left. */
    private int release(long atMs, int tries) {
        int released = 0;
        for (int i = 0; i < tries; i++) {
            if (pool.mayRelease(atMs)) {
                pool.released(atMs, 1);
                released++;
            }
        }
        return released;
    }

    @Test
    void shouldHoldTheInstancesReleasesOfAnySecondToThePoolPlusOne() {
        // Given: two tasks, 100/s pooled
        pool.join(0);
        pool.join(1);

        // When: the tasks try to release 300 in one burst (a stall made up at once), then again 999 ms later
        int first = release(T0, 300);
        int later = release(T0 + 999, 300);

        // Then: 101 in that second, and nothing more until the first burst is a whole second old
        assertThat(first).isEqualTo(101);
        assertThat(later).isZero();
        assertThat(release(T0 + 1_000, 300)).isEqualTo(101);
        assertThat(pool.releasedInLastSecond(T0 + 1_000)).isEqualTo(101);
    }

    @Test
    void shouldHoldALoweredPoolAtOnce() {
        // Given: 100/s pooled, 60 released in the last half second
        pool.join(0);
        pool.join(1);
        assertThat(release(T0, 60)).isEqualTo(60);

        // When: the lease falls to 40/s
        pool.useLease(40);

        // Then: nothing more until the 60 have left the window, then 41 in the next second
        assertThat(release(T0 + 500, 10)).isZero();
        assertThat(release(T0 + 1_000, 100)).isEqualTo(41);
    }

    @Test
    void shouldHoldAReleaseStampedBeforeTheLeaseRoseToThePoolThen() {
        // Given: a lease of 100/s, the second full (101 released at T0)
        pool.join(0);
        pool.useLease(100);
        assertThat(release(T0, 200)).isEqualTo(101);

        // When: at T0 + 1,500 the lease rises to 200/s
        wallMs.set(T0 + 1_500);
        pool.useLease(200);

        // Then: releases stamped before the rise (a stream thread's time read earlier) get the 100/s of then
        assertThat(release(T0 + 1_200, 300)).isEqualTo(101);
        // And: releases stamped from the rise on, the 200/s, within the second they share with those
        assertThat(release(T0 + 1_500, 300)).isEqualTo(100);
        assertThat(release(T0 + 2_200, 300)).isEqualTo(101);
    }

    @Test
    void shouldHoldForTheLeasesWhatTheLastSecondReleasedOrThePoolWhicheverIsMore() {
        // Given: a lease of 300/s, of which the tasks released 250 in the last half second
        pool.join(0);
        pool.useLease(300);
        assertThat(release(T0, 250)).isEqualTo(250);

        // When: the lease falls to 100/s at T0 + 200
        wallMs.set(T0 + 200);
        pool.useLease(100);

        // Then: the instance may still have its 250 in a second with releases to come, until they are a second old
        assertThat(pool.held()).isEqualTo(250);
        wallMs.set(T0 + 999);
        assertThat(pool.held()).isEqualTo(250);
        wallMs.set(T0 + 1_000);
        assertThat(pool.held()).isEqualTo(100);
        // And: a pool larger than what was released counts at once
        pool.useLease(150);
        assertThat(pool.held()).isEqualTo(150);
    }

    @Test
    void shouldNotHoldAPoolItDidNotUseOnceItIsSmaller() {
        // Given: a lease of 300/s of which 40 were released; then a lease of 100/s
        pool.join(0);
        pool.useLease(300);
        assertThat(release(T0, 40)).isEqualTo(40);
        pool.useLease(100);

        // Then: the larger lease it never used reserves nothing: its last second holds 40, its pool is 100
        assertThat(pool.held()).isEqualTo(100);
    }

    @Test
    void shouldLetARecordThatCostsMoreThanTheCeilingLeaveAloneInItsSecond() {
        pool.join(0); // 50/s
        assertThat(pool.mayRelease(T0)).isTrue();
        pool.released(T0, 80);
        assertThat(pool.mayRelease(T0 + 999)).isFalse();
        assertThat(pool.mayRelease(T0 + 1_000)).isTrue();
    }
}
