package dev.shaper.demo.embedded;

import java.util.ArrayList;
import java.util.List;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.function.ToLongFunction;

/**
 * The samples of one demo run, about one a second, and the per-second rates between them. Thread-safe: the
 * sampler adds while the console and the report read.
 */
public final class RateTimeline {

    /**
     * The rates between two consecutive samples, per second, at the later sample's time, and the closed loop's
     * capacity at that sample (NaN when the capacity is fixed).
     */
    public record Rates(double atSeconds, double input, double shaped, double rejected, double db, double capacity) {

        /** The rates of a run whose capacity is fixed. */
        public Rates(double atSeconds, double input, double shaped, double rejected, double db) {
            this(atSeconds, input, shaped, rejected, db, Double.NaN);
        }
    }

    /**
     * What waits and what is refused, at one sample: the records produced but neither shaped nor rejected yet, and
     * the rejections per second since the previous sample, by {@code shaper.reason}, apart for those refused at
     * arrival and those rejected after they had waited in a queue.
     */
    public record Backlog(double atSeconds, long queued, SortedMap<String, Double> rejectedAtArrival,
                          SortedMap<String, Double> rejectedWhileQueued) {

        /** The rejections per second of {@code reason} at {@code stage}, 0 for none. */
        public double rejected(String reason, RejectionStage stage) {
            return (stage == RejectionStage.AT_ARRIVAL ? rejectedAtArrival : rejectedWhileQueued)
                    .getOrDefault(reason, 0.0);
        }
    }

    private final List<Sample> samples = new ArrayList<>();

    public synchronized void add(Sample sample) {
        samples.add(sample);
    }

    public synchronized List<Sample> samples() {
        return List.copyOf(samples);
    }

    /** The latest sample, or null before the first. */
    public synchronized Sample last() {
        return samples.isEmpty() ? null : samples.get(samples.size() - 1);
    }

    /**
     * The rates between consecutive samples, one per sample: the first is from the producer's start, when every
     * counter was zero, to the first sample. (Leaving that interval out lost a burst produced before the first
     * sample, and the summary's "peak" could then read lower than the average.)
     */
    public List<Rates> rates() {
        List<Sample> all = samples();
        List<Rates> rates = new ArrayList<>();
        Sample previous = START;
        for (Sample sample : all) {
            rates.add(between(previous, sample));
            previous = sample;
        }
        return rates;
    }

    /**
     * The queue depth and the rejections by reason and stage at each sample, from the producer's start as
     * {@link #rates()}.
     */
    public List<Backlog> backlog() {
        List<Backlog> backlog = new ArrayList<>();
        Sample previous = START;
        for (Sample sample : samples()) {
            double seconds = Math.max(1, sample.elapsedMs() - previous.elapsedMs()) / 1000.0;
            SortedMap<String, Double> atArrival = new TreeMap<>();
            SortedMap<String, Double> whileQueued = new TreeMap<>();
            for (String reason : sample.rejectedByReason().keySet()) {
                atArrival.put(reason, (sample.rejectedAtArrival(reason) - previous.rejectedAtArrival(reason))
                        / seconds);
                long queued = sample.rejectedWhileQueued().getOrDefault(reason, 0L);
                if (queued > 0) {
                    whileQueued.put(reason, (queued - previous.rejectedWhileQueued().getOrDefault(reason, 0L))
                            / seconds);
                }
            }
            backlog.add(new Backlog(sample.elapsedMs() / 1000.0, sample.queueDepth(), atArrival, whileQueued));
            previous = sample;
        }
        return backlog;
    }

    /** The counters when the producer starts: the origin of {@link Sample#elapsedMs()}. */
    static final Sample START = new Sample(0, 0, 0, new TreeMap<>(), 0);

    static Rates between(Sample from, Sample to) {
        double seconds = Math.max(1, to.elapsedMs() - from.elapsedMs()) / 1000.0;
        return new Rates(to.elapsedMs() / 1000.0,
                rate(from, to, Sample::produced, seconds), rate(from, to, Sample::shaped, seconds),
                rate(from, to, Sample::rejected, seconds), rate(from, to, Sample::dbRows, seconds), to.capacity());
    }

    private static double rate(Sample from, Sample to, ToLongFunction<Sample> counter, double seconds) {
        return (counter.applyAsLong(to) - counter.applyAsLong(from)) / seconds;
    }
}
