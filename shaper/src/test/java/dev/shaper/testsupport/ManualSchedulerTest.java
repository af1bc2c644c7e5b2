package dev.shaper.testsupport;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class ManualSchedulerTest {

    private final ManualScheduler scheduler = new ManualScheduler(0);
    private final List<String> ran = new ArrayList<>();

    private Runnable record(String name) {
        return () -> ran.add(name + "@" + scheduler.nanoTime() / 1_000_000);
    }

    @Test
    void periodicTasksRunAtTheirDueTimesInOrderWhileTheClockIsAdvanced() {
        scheduler.scheduleWithFixedDelay(record("a"), Duration.ofMillis(100), Duration.ofMillis(100));
        scheduler.scheduleWithFixedDelay(record("b"), Duration.ZERO, Duration.ofMillis(250));
        assertThat(ran).as("nothing runs until the test drives the scheduler").isEmpty();

        scheduler.advance(Duration.ofMillis(300));

        assertThat(ran).containsExactly("b@0", "a@100", "a@200", "b@250", "a@300");
        assertThat(scheduler.nanoTime()).isEqualTo(Duration.ofMillis(300).toNanos());
    }

    @Test
    void handedOverTasksRunAtTheNextRunDueWithoutMovingTheClock() throws Exception {
        scheduler.advance(Duration.ofMillis(40));
        Thread other = new Thread(() -> scheduler.execute(record("x")));
        other.start();
        other.join();

        scheduler.runDue();

        assertThat(ran).containsExactly("x@40");
        assertThat(scheduler.nanoTime()).isEqualTo(Duration.ofMillis(40).toNanos());
        assertThat(scheduler.pending()).isZero();
    }

    @Test
    void aClosedSchedulerRunsNothingMore() {
        scheduler.scheduleWithFixedDelay(record("a"), Duration.ofMillis(10), Duration.ofMillis(10));
        scheduler.close();
        scheduler.execute(record("x"));

        scheduler.advance(Duration.ofSeconds(1));

        assertThat(ran).isEmpty();
        assertThatThrownBy(() -> scheduler.scheduleWithFixedDelay(record("z"), Duration.ZERO, Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
