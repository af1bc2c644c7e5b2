package dev.shaper.internals.capacity.adaptive;

import dev.shaper.internals.capacity.RestoreListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Starts the closed loop's warm-up when a task of this instance's start opens queues that hold records: the backlog
 * then reaches the database at the minimum first, not at full speed. Only during the instance's start, until Kafka
 * Streams first runs: a task that moves here later, in a rebalance of a running application, brings its queue to a
 * database that was being fed all along, and a warm-up then would cut the whole application's capacity for nothing.
 * Thread-safe: stream threads report, the state listener ends the start.
 */
public final class StartupWarmUp implements RestoreListener {

    private static final Logger LOG = LoggerFactory.getLogger(StartupWarmUp.class);

    private final ClosedLoop loop;
    private volatile boolean started;

    public StartupWarmUp(ClosedLoop loop) {
        this.loop = loop;
    }

    @Override
    public void restored(int partition, long records) {
        if (records > 0 && !started && loop.warmUp()) {
            LOG.info("Capacity: partition {} opened with {} queued record(s) at this instance's start; warming up",
                    partition, records);
        }
    }

    /** The instance runs (Kafka Streams reached RUNNING): its start, and the restores that warm up, are over. */
    public void instanceRunning() {
        started = true;
    }
}
