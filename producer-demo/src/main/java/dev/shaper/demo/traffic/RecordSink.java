package dev.shaper.demo.traffic;

/** Where a {@link TrafficGenerator} sends its records: Kafka in the tool, a list in tests. */
@FunctionalInterface
public interface RecordSink {

    /** Sends one record; must not block for long (the generator's pacing depends on it). */
    void send(DemoRecordId id, byte[] value);
}
