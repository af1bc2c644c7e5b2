package dev.shaper.internals.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.streams.KafkaStreams.State;
import org.junit.jupiter.api.Test;

/** When an instance counts as ready, and what takes readiness away again. */
class StreamsHealthTest {

    private final AtomicReference<State> state = new AtomicReference<>(State.CREATED);
    private final StreamsHealth health = new StreamsHealth();
    private final TopicPartition changelog = new TopicPartition("app-shaper-schedule-changelog", 0);

    StreamsHealthTest() {
        health.watch(state::get);
    }

    @Test
    void shouldComeUpOnlyOnceRunningWithNothingRestoring() {
        assertThat(health.isReady()).isFalse();
        state.set(State.REBALANCING);
        assertThat(health.isReady()).as("a first rebalance is not being up").isFalse();
        state.set(State.RUNNING);
        health.onRestoreStart(changelog, "shaper-schedule", 0, 100);
        assertThat(health.isReady()).as("running while a store restores").isFalse();
        health.onRestoreEnd(changelog, "shaper-schedule", 100);
        assertThat(health.isReady()).isTrue();
    }

    @Test
    void shouldStayReadyThroughRebalancesAndRestoresOfTasksItTakesOver() {
        state.set(State.RUNNING);
        health.stateChanged();

        // When: another instance joins or leaves, and this one takes over a task that restores
        state.set(State.REBALANCING);
        health.onRestoreStart(changelog, "shaper-schedule", 0, 100);

        // Then: still ready, so that a rolling restart never takes every instance out of its Service at once
        assertThat(health.isReady()).isTrue();
        assertThat(health.describe()).contains("REBALANCING", "restoring 1 store partition(s)");
    }

    @Test
    void shouldNoticeComingUpBetweenTwoProbes() {
        // The state listener tells the health; no probe asked while the instance was RUNNING
        state.set(State.RUNNING);
        health.stateChanged();
        state.set(State.REBALANCING);
        assertThat(health.isReady()).isTrue();
    }

    @Test
    void shouldNotBeReadyWhenStoppingOrFailed() {
        state.set(State.RUNNING);
        assertThat(health.isReady()).isTrue();
        state.set(State.ERROR);
        assertThat(health.isReady()).isFalse();
        assertThat(health.isLive()).isFalse();

        StreamsHealth stopping = new StreamsHealth();
        stopping.watch(() -> State.RUNNING);
        assertThat(stopping.isReady()).isTrue();
        stopping.stopping();
        assertThat(stopping.isReady()).isFalse();
    }
}
