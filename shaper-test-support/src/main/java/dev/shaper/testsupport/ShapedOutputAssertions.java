package dev.shaper.testsupport;

import static org.assertj.core.api.Assertions.assertThat;

import org.assertj.core.api.SoftAssertions;

/** The shaper's promises about queued records, checked on a {@link VerificationReport}. */
public final class ShapedOutputAssertions {

    private ShapedOutputAssertions() {
    }

    /**
     * Every id exactly once, none rejected, each key in order, and no key released more than
     * {@code maxPerSecond} records in any one-second window.
     */
    public static void assertExactlyOnceInOrderWithin(VerificationReport report, int maxPerSecond) {
        assertThat(report.missing()).withFailMessage("missing ids; %s", report.summary()).isEmpty();
        assertThat(report.duplicates()).withFailMessage("duplicated ids; %s", report.summary()).isEmpty();
        assertThat(report.unexpected()).withFailMessage("unexpected records; %s", report.summary()).isEmpty();
        assertThat(report.rejectedCount()).withFailMessage("rejected records; %s", report.summary()).isZero();
        assertThat(report.orderViolations()).withFailMessage("out of order; %s", report.summary()).isEmpty();
        SoftAssertions.assertSoftly(softly -> {
            for (KeyArrivals key : report.keys().values()) {
                softly.assertThat(key.maxInWindow()).as("most records of %s released in one second", key.key())
                        .isLessThanOrEqualTo(maxPerSecond);
            }
        });
    }
}
