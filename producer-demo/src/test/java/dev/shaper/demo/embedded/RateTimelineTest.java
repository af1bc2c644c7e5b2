package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class RateTimelineTest {

    private static Sample sample(long elapsedMs, long produced) {
        return new Sample(elapsedMs, produced, 0, new TreeMap<>(), 0);
    }

    @Test
    void shouldCountWhatWasProducedBeforeTheFirstSample() {
        // Given: a burst of 400 records in the first second, then 100 more in the next
        RateTimeline timeline = new RateTimeline();
        timeline.add(sample(1_000, 400));
        timeline.add(sample(2_000, 500));
        // When
        List<RateTimeline.Rates> rates = timeline.rates();
        // Then: the burst is a rate of its own, so the peak (400/s) is not below the average (250/s)
        assertThat(rates).extracting(RateTimeline.Rates::input).containsExactly(400.0, 100.0);
        assertThat(rates).extracting(RateTimeline.Rates::atSeconds).containsExactly(1.0, 2.0);
    }

    @Test
    void shouldHaveNoRatesBeforeTheFirstSample() {
        assertThat(new RateTimeline().rates()).isEmpty();
    }
}
