package dev.shaper.demo.db;

import dev.shaper.ShaperHeaders;
import dev.shaper.demo.traffic.DemoRecordId;
import java.nio.charset.StandardCharsets;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.record.TimestampType;

/** Turns a record read from the shaped topic into the row the DB writer stores. */
public final class ShapedRecordRows {

    /** The run id of rows for records that carry no {@link DemoRecordId}: their id is their topic position. */
    public static final String FOREIGN_RUN = "-";

    private ShapedRecordRows() {
    }

    /**
     * The row of {@code record}. Its id is the {@link DemoRecordId} in the value or, for a record written by
     * anyone else, its {@code topic-partition@offset} (unique too, so replays stay idempotent). Its release
     * time is the {@code shaper.released.ms} header; for a record without it (one that passed at once through
     * a shaper before 0.1.0, which left on arrival) the broker's append time stands in where the topic records it
     * ({@code message.timestamp.type=LogAppendTime}); otherwise it is unknown (null): the create time would be
     * the producer's clock, not the shaper's.
     */
    public static ShapedRow toRow(ConsumerRecord<String, byte[]> record) {
        String key = record.key() == null ? "" : record.key();
        String runId;
        String recordId;
        try {
            DemoRecordId id = DemoRecordId.parse(record.value());
            runId = id.run();
            recordId = id.recordId();
        } catch (IllegalArgumentException notOurs) {
            runId = FOREIGN_RUN;
            recordId = record.topic() + "-" + record.partition() + "@" + record.offset();
        }
        return new ShapedRow(runId, recordId, key, releasedMs(record));
    }

    private static Long releasedMs(ConsumerRecord<String, byte[]> record) {
        Long released = number(record.headers().lastHeader(ShaperHeaders.RELEASED_MS));
        if (released != null) {
            return released;
        }
        // The shaper writes shaper.queued.ms only on records that waited: none (or 0) means it passed at once.
        Long queuedMs = number(record.headers().lastHeader(ShaperHeaders.QUEUED_MS));
        boolean passedAtOnce = queuedMs == null || queuedMs == 0;
        return passedAtOnce && record.timestampType() == TimestampType.LOG_APPEND_TIME ? record.timestamp() : null;
    }

    private static Long number(Header header) {
        if (header == null || header.value() == null) {
            return null;
        }
        try {
            return Long.parseLong(new String(header.value(), StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
