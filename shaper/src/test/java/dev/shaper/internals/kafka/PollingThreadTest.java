package dev.shaper.internals.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.testsupport.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.LoggerFactory;

/** The polling thread on a mock consumer: what reaches the handler, a failed poll, and how it ends. */
@Timeout(30)
class PollingThreadTest {

    private static final TopicPartition PARTITION = new TopicPartition("topic", 0);
    private static final Duration WAIT = Duration.ofSeconds(10);

    /** A mock consumer whose empty polls take a moment, as a real one's do, so that the thread does not spin. */
    private static final class Consumer extends MockConsumer<byte[], byte[]> {
        Consumer() {
            super("earliest");
            assign(List.of(PARTITION));
            updateBeginningOffsets(Map.of(PARTITION, 0L));
        }

        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            ConsumerRecords<byte[], byte[]> records = super.poll(timeout);
            if (records.isEmpty()) {
                try {
                    wait(5);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return records;
        }

        void add(long offset, String value) {
            addRecord(new ConsumerRecord<>(PARTITION.topic(), PARTITION.partition(), offset, null,
                    value.getBytes(StandardCharsets.UTF_8)));
        }
    }

    private final List<String> handled = new CopyOnWriteArrayList<>();
    private final PollingThread polling = new PollingThread("test-polling-thread", "topic",
            LoggerFactory.getLogger(PollingThreadTest.class), "Test", "retrying every {} ms");

    private void handle(ConsumerRecords<byte[], byte[]> records) {
        records.forEach(record -> handled.add(new String(record.value(), StandardCharsets.UTF_8)));
    }

    @Test
    void handsEachPollsRecordsToTheHandlerUntilClosedThenClosesTheConsumer() {
        Consumer consumer = new Consumer();
        consumer.add(0, "a");
        consumer.add(1, "b");

        polling.start(consumer, this::handle);
        assertThat(polling.isStarted()).isTrue();
        Await.until("both records handled", WAIT, () -> handled.size() == 2);
        consumer.add(2, "c");
        Await.until("the third handled", WAIT, () -> handled.size() == 3);
        polling.close();

        assertThat(handled).containsExactly("a", "b", "c");
        assertThat(polling.isRunning()).isFalse();
        assertThat(consumer.closed()).isTrue();
        assertThat(polling.failedPolls()).isZero();
    }

    @Test
    void aFailedPollIsCountedAndRetriedAfterAPause() {
        Consumer consumer = new Consumer();
        consumer.setPollException(new KafkaException("broker gone"));
        consumer.add(0, "after the failure");
        long start = System.nanoTime();

        polling.start(consumer, this::handle);
        Await.until("the record handled after the retry", WAIT, () -> !handled.isEmpty());

        assertThat(polling.failedPolls()).isEqualTo(1);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(
                Duration.ofMillis(PollingThread.RETRY_PAUSE_MS));
        assertThat(polling.isRunning()).isTrue();
        polling.close();
        assertThat(consumer.closed()).isTrue();
    }

    @Test
    void aThreadClosedBeforeItsStartEndsAtOnceAndClosesTheConsumer() {
        Consumer consumer = new Consumer();
        consumer.add(0, "never handled");
        polling.close();

        polling.start(consumer, this::handle);
        Await.until("the thread ended", WAIT, () -> !polling.isRunning());

        assertThat(consumer.closed()).isTrue();
        assertThat(handled).isEmpty();
    }

    @Test
    void startsOnce() {
        assertThat(polling.isStarted()).isFalse();
        polling.start(new Consumer(), this::handle);
        try {
            assertThatThrownBy(() -> polling.start(new Consumer(), this::handle))
                    .isInstanceOf(IllegalStateException.class).hasMessageContaining("already started");
        } finally {
            polling.close();
        }
    }
}
