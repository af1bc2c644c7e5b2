package dev.shaper.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Writes collected records as CSV ({@code topic,key,seq,arrival_ms,queued_ms,reason}, arrival in milliseconds
 * from the first record read), for looking at a run after the fact: batch sizes, gaps, where a window filled.
 */
public final class ArrivalLog {

    private ArrivalLog() {
    }

    public static void write(Path file, List<CollectedRecord> records) {
        StringBuilder csv = new StringBuilder("topic,key,seq,arrival_ms,appended_at_ms,released_at_ms,queued_ms,reason\n");
        long origin = records.isEmpty() ? 0 : records.get(0).arrivalNanos();
        for (CollectedRecord r : records) {
            csv.append(r.topic()).append(',').append(r.key()).append(',')
                    .append(r.id() == null ? "" : Long.toString(r.id().seq())).append(',')
                    .append(String.format(java.util.Locale.ROOT, "%.3f", (r.arrivalNanos() - origin) / 1e6))
                    .append(',').append(r.appendedAtMs() == null ? "" : r.appendedAtMs().toString())
                    .append(',').append(r.releasedAtMs() == null ? "" : r.releasedAtMs().toString())
                    .append(',').append(r.queuedMs() == null ? "" : r.queuedMs().toString()).append(',')
                    .append(r.reason() == null ? "" : r.reason()).append('\n');
        }
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, csv);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + file, e);
        }
    }
}
