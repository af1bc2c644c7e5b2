package dev.shaper.demo.db;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LatencyRecorderTest {

    @Test
    void shouldAnswerNearestRankPercentiles() {
        LatencyRecorder recorder = new LatencyRecorder();
        for (int i = 100; i >= 1; i--) {
            recorder.record(i);
        }

        assertThat(recorder.percentile(50)).isEqualTo(50);
        assertThat(recorder.percentile(95)).isEqualTo(95);
        assertThat(recorder.percentile(99)).isEqualTo(99);
        assertThat(recorder.percentile(100)).isEqualTo(100);
        assertThat(recorder.count()).isEqualTo(100);
    }

    @Test
    void shouldAnswerZeroWithoutSamples() {
        assertThat(new LatencyRecorder().percentile(99)).isZero();
    }

    @Test
    void shouldKeepMoreSamplesThanItsInitialCapacity() {
        LatencyRecorder recorder = new LatencyRecorder();
        for (int i = 0; i < 5000; i++) {
            recorder.record(7);
        }
        recorder.record(1000);

        assertThat(recorder.count()).isEqualTo(5001);
        assertThat(recorder.percentile(100)).isEqualTo(1000);
    }
}
