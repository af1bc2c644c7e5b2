package dev.shaper.bench.lease;

import java.util.ArrayDeque;
import java.util.Iterator;

/**
 * What a simulated instance released over the last second, from the rates it released at: the part of
 * {@code held} that the shaper's pool counts from its releases (the higher of that and the rate is what the
 * lease entry reserves).
 */
final class SimulatedReleases {

    private static final long WINDOW_MS = 1_000;

    private record Segment(long startMs, double unitsPerSecond) {
    }

    private final ArrayDeque<Segment> segments = new ArrayDeque<>();

    /** From {@code nowMs} on the instance releases {@code unitsPerSecond}. */
    synchronized void releaseAt(long nowMs, double unitsPerSecond) {
        segments.addLast(new Segment(nowMs, Math.max(0, unitsPerSecond)));
        // keep the last segment that started before the window: it covers the window's start
        while (segments.size() > 1) {
            Iterator<Segment> it = segments.iterator();
            it.next();
            if (it.next().startMs() > nowMs - WINDOW_MS) {
                break;
            }
            segments.removeFirst();
        }
    }

    /** Units released in the second before {@code nowMs}. */
    synchronized double lastSecond(long nowMs) {
        double units = 0;
        long from = nowMs - WINDOW_MS;
        Segment previous = null;
        for (Segment s : segments) {
            if (previous != null) {
                units += span(previous, s.startMs(), from);
            }
            previous = s;
        }
        return previous == null ? 0 : units + span(previous, nowMs, from);
    }

    private static double span(Segment s, long endMs, long fromMs) {
        long start = Math.max(s.startMs(), fromMs);
        return endMs > start ? s.unitsPerSecond() * (endMs - start) / 1_000.0 : 0;
    }
}
