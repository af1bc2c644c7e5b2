package dev.shaper.demo.db;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.Test;

class DbSlowdownTest {

    private static final long MS = 1_000_000L;

    private final DbSlowdown tenSecondsFromTen = new DbSlowdown(Duration.ofSeconds(10), Duration.ofSeconds(10),
            Duration.ofMillis(50));

    @Test
    void shouldDelayTheBatchesThatBeginFromTheStartToBeforeTheEnd() {
        assertThat(tenSecondsFromTen.extraDelayNanos(0)).isZero();
        assertThat(tenSecondsFromTen.extraDelayNanos(10_000 * MS - 1)).isZero();
        assertThat(tenSecondsFromTen.extraDelayNanos(10_000 * MS)).isEqualTo(50 * MS);
        assertThat(tenSecondsFromTen.extraDelayNanos(20_000 * MS - 1)).isEqualTo(50 * MS);
        assertThat(tenSecondsFromTen.extraDelayNanos(20_000 * MS)).isZero();
    }

    @Test
    void shouldDelayFromTheFirstBatchWhenTheSlowdownStartsAtZero() {
        DbSlowdown fromTheStart = new DbSlowdown(Duration.ZERO, Duration.ofSeconds(1), Duration.ofMillis(5));

        assertThat(fromTheStart.extraDelayNanos(0)).isEqualTo(5 * MS);
    }

    @Test
    void shouldReadAsOnTheCommandLineAndInWords() {
        assertThat(tenSecondsFromTen).hasToString("10s+10s:50ms");
        assertThat(tenSecondsFromTen.describe()).isEqualTo("from 10s after the start, for 10s, each batch 50ms slower");
    }

    @Test
    void shouldRefuseAnEmptyLengthOrDelayWhenMade() {
        assertThatThrownBy(() -> new DbSlowdown(Duration.ofSeconds(-1), Duration.ofSeconds(1), Duration.ofMillis(1)))
                .hasMessage("the slowdown's start must be >= 0, got -1s");
        assertThatThrownBy(() -> new DbSlowdown(Duration.ZERO, Duration.ZERO, Duration.ofMillis(1)))
                .hasMessage("the slowdown's length must be > 0, got 0s");
        assertThatThrownBy(() -> new DbSlowdown(Duration.ZERO, Duration.ofSeconds(1), Duration.ZERO))
                .hasMessage("the slowdown's extra delay must be > 0, got 0s");
    }
}
