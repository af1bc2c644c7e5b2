package dev.shaper.demo.db;

/**
 * One row the DB writer stores for one shaped record.
 *
 * @param runId      the generator run (from the record's id)
 * @param recordId   the id within the run, {@code <key>:<seq>}
 * @param recordKey  the Kafka record key
 * @param releasedMs when the shaper released the record (epoch ms), or null where the record does not say
 */
public record ShapedRow(String runId, String recordId, String recordKey, Long releasedMs) {
}
