package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.ShaperConfig;
import dev.shaper.ShaperHeaders;
import dev.shaper.internals.metrics.ShaperMetrics;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.streams.errors.ErrorHandlerContext;
import org.apache.kafka.streams.errors.ProductionExceptionHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When the broker refuses a shaped record as too large (the shaper's header can push a record that was just
 * under the limit over it), the record goes to the rejected topic as {@link RejectReason#INVALID_RECORD},
 * with its key and headers and without its value (which the rejected topic would refuse as well), instead of
 * stopping the stream thread. Other errors behave as Kafka's default: retry what is retriable, fail the rest.
 */
public final class OversizedRecordHandler implements ProductionExceptionHandler {

    private static final Logger LOG = LoggerFactory.getLogger(OversizedRecordHandler.class);

    private String outputTopic;
    private String rejectedTopic;
    private ShaperMetrics metrics;

    @Override
    public void configure(Map<String, ?> configs) {
        ShaperConfig config = new ShaperConfig(configs);
        outputTopic = config.outputTopic();
        rejectedTopic = config.rejectedTopic();
        // The application hands its metrics over in the settings; without them (tests, tools) count in memory.
        metrics = configs.get(ShaperMetrics.SETTINGS_KEY) instanceof ShaperMetrics m ? m : ShaperMetrics.inMemory();
    }

    @Override
    public Response handleError(ErrorHandlerContext context, ProducerRecord<byte[], byte[]> record,
                                Exception exception) {
        if (exception instanceof RecordTooLargeException && outputTopic.equals(record.topic())) {
            int size = record.value() == null ? 0 : record.value().length;
            LOG.warn("A shaped record of {} value bytes is too large for topic {}; it goes to {} without its value",
                    size, outputTopic, rejectedTopic);
            Headers headers = new RecordHeaders(record.headers().toArray());
            HeaderValues.set(headers, ShaperHeaders.REASON, RejectReason.INVALID_RECORD.name());
            headers.remove(ShaperHeaders.RETRY_AFTER_MS);
            HeaderValues.set(headers, ShaperHeaders.DETAIL, "record with a value of " + size
                    + " bytes is too large for topic " + outputTopic + " (" + exception.getMessage()
                    + "); the value is omitted here");
            metrics.rejected(RejectReason.INVALID_RECORD);
            return Response.resume(List.of(new ProducerRecord<>(rejectedTopic, null, record.timestamp(),
                    record.key(), null, headers)));
        }
        return exception instanceof RetriableException ? Response.retry() : Response.fail();
    }
}
