package dev.shaper.reliability;

import dev.shaper.testsupport.ShaperProcess;
import java.nio.file.Path;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Samples the shaper child that runs now (it may be replaced after a kill) at a fixed interval, logs each sample
 * and keeps the largest values seen.
 */
final class ChildSampler implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(ChildSampler.class);

    private final Supplier<ShaperProcess> child;
    private final int httpPort;
    private final Path stateDir;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "child-sampler");
        t.setDaemon(true);
        return t;
    });
    private volatile long maxRss = -1;
    private volatile long maxPeakRss = -1;
    private volatile long maxPss = -1;
    private volatile long maxHeap = -1;
    private volatile long maxCacheKeys = -1;
    private volatile long maxStateBytes = -1;
    private volatile int samples;
    private volatile int unanswered;
    private volatile HeavyRuns.Sample last;
    private volatile boolean expectAnswers;
    private volatile Supplier<String> progress = () -> "";

    ChildSampler(Supplier<ShaperProcess> child, int httpPort, Path stateDir, long intervalMs) {
        this.child = child;
        this.httpPort = httpPort;
        this.stateDir = stateDir;
        timer.scheduleAtFixedRate(this::sampleQuietly, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    private void sampleQuietly() {
        try {
            sampleNow();
        } catch (RuntimeException | AssertionError e) {
            LOG.warn("sample failed: {}", e.toString());
        }
    }

    /** Takes a sample now, records it and returns it. */
    synchronized HeavyRuns.Sample sampleNow() {
        ShaperProcess p = child.get();
        HeavyRuns.Sample s = HeavyRuns.sample(p.pid(), httpPort, stateDir);
        maxRss = Math.max(maxRss, s.rssBytes());
        maxPeakRss = Math.max(maxPeakRss, s.peakRssBytes());
        maxPss = Math.max(maxPss, s.pssBytes());
        maxHeap = Math.max(maxHeap, s.heapUsedBytes());
        maxCacheKeys = Math.max(maxCacheKeys, s.cacheKeys());
        maxStateBytes = Math.max(maxStateBytes, s.stateBytes());
        samples++;
        if (s.heapUsedBytes() < 0 && p.isAlive() && expectAnswers) {
            unanswered++;
        }
        last = s;
        LOG.info("child {}: RSS {} (peak {}, PSS {}), heap used {}, cached key states {}, queued records {},"
                        + " state dir {}{}", p.pid(), HeavyRuns.mb(s.rssBytes()), HeavyRuns.mb(s.peakRssBytes()),
                HeavyRuns.mb(s.pssBytes()), HeavyRuns.mb(s.heapUsedBytes()),
                s.cacheKeys(), s.queueRecords(), HeavyRuns.mb(s.stateBytes()), progress.get());
        return s;
    }

    /**
     * Whether the child should answer {@code /metrics} now (it is ready, not starting or restoring): a sample it
     * does not answer then counts in {@link #unanswered()}.
     */
    void expectAnswers(boolean expect) {
        expectAnswers = expect;
    }

    /** What the run has done so far, appended to each sample's log line. */
    void progress(Supplier<String> progress) {
        this.progress = progress;
    }

    long maxRss() {
        return Math.max(maxRss, maxPeakRss);
    }

    /** The largest proportional set size sampled (the resident memory with each page counted once). */
    long maxPss() {
        return maxPss;
    }

    long maxHeap() {
        return maxHeap;
    }

    long maxCacheKeys() {
        return maxCacheKeys;
    }

    long maxStateBytes() {
        return maxStateBytes;
    }

    int samples() {
        return samples;
    }

    /** Samples where the child ran but its /metrics did not answer. */
    int unanswered() {
        return unanswered;
    }

    HeavyRuns.Sample last() {
        return last;
    }

    @Override
    public void close() {
        timer.shutdownNow();
    }
}
