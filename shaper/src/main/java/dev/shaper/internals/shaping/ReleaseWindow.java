package dev.shaper.internals.shaping;

/**
 * What one key released over the last second of wall-clock time, so that no one-second window of its releases
 * holds more than a limit, whatever the stream thread did before: a release at {@code t} is allowed only while the
 * units released in {@code (t - 1 s, t]} are fewer than the limit. The release's own cost comes on top, as a leaky
 * bucket charges a record's cost after it: with records of one unit a window holds at most the limit, and a record
 * that costs more still leaves, so that no cost blocks a key for good.
 *
 * <p>Time made up after a stall is what a window like this has room for: a stall leaves its second short of
 * releases, and the key may catch up until that second is full again, never past it.
 *
 * <p>Releases of the same millisecond share one entry, so the window holds at most 1,000 entries whatever the rate.
 * Wall time that goes backwards is taken as standing still: the window then only holds releases longer.
 *
 * <p>A window may start from an assumption about the second before it ({@link #assumingFullRate}): a key that
 * passed records at once at its rate until it started to queue may have used all of it.
 */
public final class ReleaseWindow {

    /** The length of the window. */
    public static final long WINDOW_MS = 1_000;

    private static final int INITIAL_ENTRIES = 4;
    private static final long NO_LIMIT = -1;

    private long[] stampsMs = new long[INITIAL_ENTRIES];
    private long[] units = new long[INITIAL_ENTRIES];
    private int head;
    private int size;
    private long sum;
    /** The assumed releases before the window started: {@link #assumedRate} per second until {@link #assumedUntilMs}. */
    private long assumedUntilMs = Long.MIN_VALUE;
    private double assumedRate;
    /** The limit last asked for, the one before it, and when it changed. */
    private long limit = NO_LIMIT;
    private long earlierLimit = NO_LIMIT;
    private long limitChangedMs = Long.MIN_VALUE;

    /** An empty window: nothing released in the last second. */
    public ReleaseWindow() {
    }

    /**
     * A window for a key that may have released at {@code ratePerSecond} (at once, each record on its schedule) up
     * to {@code wallMs}: that second counts as used at the rate, plus one record, until it has passed. Records on
     * the key's schedule still leave on time; only time made up must wait for that second to pass.
     */
    public static ReleaseWindow assumingFullRate(double ratePerSecond, long wallMs) {
        ReleaseWindow window = new ReleaseWindow();
        window.assumedRate = ratePerSecond;
        window.assumedUntilMs = wallMs;
        return window;
    }

    /**
     * Whether a release may happen at {@code wallMs} within {@code limit} units a second: fewer than {@code limit}
     * units in the window. A limit that changed (the key's rule did) applies from then on: for a second after the
     * change the window holds at most the higher of the old and the new limit, so that a lowered rate paces the key
     * at once, without a pause for the releases made at the old rate to leave the window.
     */
    public boolean allows(long wallMs, long limit) {
        return heldAt(wallMs) < effectiveLimit(wallMs, limit);
    }

    /**
     * Whether a release may happen at {@code wallMs} with the window held to {@code limit} at once, whatever it was
     * before: fewer than {@code limit} units in the window. For a ceiling that others may take up as soon as it falls
     * (the database's capacity, shared across instances), where {@link #allows} would let the old one stand a second.
     */
    public boolean holdsLessThan(long wallMs, long limit) {
        return heldAt(wallMs) < limit;
    }

    private long effectiveLimit(long wallMs, long limit) {
        if (limit != this.limit) {
            earlierLimit = this.limit == NO_LIMIT ? limit
                    : wallMs - limitChangedMs < WINDOW_MS ? Math.max(earlierLimit, this.limit) : this.limit;
            limitChangedMs = wallMs;
            this.limit = limit;
        }
        return wallMs - limitChangedMs < WINDOW_MS ? Math.max(earlierLimit, limit) : limit;
    }

    /**
     * How long from {@code wallMs} until the window holds fewer than {@code limit} units, as its releases leave it
     * (an assumed second counts in full until its end: an upper bound); 0 if it does already.
     */
    public long msUntilBelow(long wallMs, long limit) {
        long held = heldAt(wallMs);
        if (held < limit) {
            return 0;
        }
        long assumed = assumedAt(wallMs);
        long left = held - assumed;
        for (int i = firstInWindow(wallMs); i < size; i++) {
            left -= units[index(i)];
            if (left + assumed < limit) {
                return stampsMs[index(i)] + WINDOW_MS - wallMs;
            }
        }
        return assumedUntilMs + WINDOW_MS - wallMs; // what was released is gone; the assumed second ends last
    }

    /**
     * When the units still to come may leave under {@code limit} units a second, from {@code wallMs} on (see
     * {@link WindowCurve}). For a ceiling, whose window assumes nothing: an assumed second is not counted.
     */
    public WindowCurve curve(long wallMs, long limit) {
        expire(wallMs);
        int first = firstInWindow(wallMs);
        long[] stamps = new long[size - first];
        long[] upTo = new long[size - first];
        long total = 0;
        for (int i = first; i < size; i++) {
            stamps[i - first] = stampsMs[index(i)];
            total += units[index(i)];
            upTo[i - first] = total;
        }
        return new WindowCurve(wallMs, limit, stamps, upTo);
    }

    /** Records a release of {@code cost} units at {@code wallMs}. */
    public void record(long wallMs, long cost) {
        expire(wallMs);
        if (size > 0) {
            int last = index(size - 1);
            if (stampsMs[last] >= wallMs) { // the same millisecond, or the clock went back: one entry
                units[last] += cost;
                sum += cost;
                return;
            }
        }
        if (size == stampsMs.length) {
            grow();
        }
        int at = index(size);
        stampsMs[at] = wallMs;
        units[at] = cost;
        size++;
        sum += cost;
    }

    /** Whether the window holds nothing at {@code wallMs}: forgetting it then changes no decision. */
    public boolean isEmptyAt(long wallMs) {
        return heldAt(wallMs) == 0;
    }

    /** The units the window holds at {@code wallMs}: released in {@code (wallMs - 1 s, wallMs]}, or assumed so. */
    public long heldAt(long wallMs) {
        expire(wallMs);
        long held = sum;
        int first = firstInWindow(wallMs);
        for (int i = 0; i < first; i++) {
            held -= units[index(i)];
        }
        return held + assumedAt(wallMs);
    }

    /** The first entry in {@code (wallMs - 1 s, wallMs]}: those before it were kept for a query of an earlier time. */
    private int firstInWindow(long wallMs) {
        int i = 0;
        while (i < size && stampsMs[index(i)] <= wallMs - WINDOW_MS) {
            i++;
        }
        return i;
    }

    private long assumedAt(long wallMs) {
        long leftMs = assumedUntilMs - (wallMs - WINDOW_MS); // how much of the assumed second is still in the window
        if (assumedUntilMs == Long.MIN_VALUE || leftMs <= 0) {
            return 0;
        }
        return (long) Math.floor(assumedRate * Math.min(leftMs, WINDOW_MS) / WINDOW_MS) + 1;
    }

    /**
     * Drops the entries no query can count any more: out of the window at {@code wallMs}, and at the newest release
     * recorded. A query may come with a later time than the releaser's own clock (a reader on another thread, on
     * the system clock, while the releasing thread's cached time lags it): dropping what is out of its window would
     * take from the releaser's next query, at its earlier time, releases that still count.
     */
    private void expire(long wallMs) {
        if (size == 0) {
            return;
        }
        long newest = stampsMs[index(size - 1)];
        long oldest = Math.min(wallMs, newest) - WINDOW_MS; // entries at or before it are out of every window to come
        while (size > 0 && stampsMs[head] <= oldest) {
            sum -= units[head];
            head = (head + 1) % stampsMs.length;
            size--;
        }
    }

    private int index(int i) {
        return (head + i) % stampsMs.length;
    }

    private void grow() {
        long[] newStamps = new long[stampsMs.length * 2];
        long[] newUnits = new long[units.length * 2];
        for (int i = 0; i < size; i++) {
            newStamps[i] = stampsMs[index(i)];
            newUnits[i] = units[index(i)];
        }
        stampsMs = newStamps;
        units = newUnits;
        head = 0;
    }
}
