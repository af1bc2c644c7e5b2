package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.limits.RecordSize;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.ShaperInstance;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Future;
import java.util.function.Consumer;
import java.util.stream.StreamSupport;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.header.internals.RecordHeader;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.assertj.core.api.SoftAssertions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The bad-input catalogue: one shaper on a real broker (admission keyed by a header, local buckets, a small output
 * topic) is sent more than 60 kinds of odd or malformed records in one go, and every one ends where the README says
 * it should. Shaped ones keep their key, value, timestamp and headers, lose any header the shaper writes itself and
 * gain one {@code shaper.queued.ms} when they waited and none when they passed at once; rejected ones carry the README's reason, a retry-after exactly when a retry can
 * succeed, their source coordinates and, when the rejected topic would not take them whole, what was left out.
 * Afterwards the shaper is still RUNNING, an ordinary record is still shaped, and each input record was written
 * exactly once to the shaped or the rejected topic, with nothing else there.
 */
class BadInputCatalogueIT {

    private static final Logger LOG = LoggerFactory.getLogger(BadInputCatalogueIT.class);

    private static final String IN = "catalogue-in";
    private static final String OUT = "catalogue-out";
    private static final String REJECTED = "catalogue-rejected";
    /** Small limits, so that size cases cost kilobytes, not megabytes. */
    private static final int OUTPUT_MAX_MESSAGE_BYTES = 20_000;
    private static final int REJECTED_MAX_MESSAGE_BYTES = 40_000;
    /** Larger than both limits, well inside the input topic's. */
    private static final int TOO_LARGE_FOR_ALL = 45_000;

    private static final String ID = "case-id";
    private static final String TENANT = "tenant";
    private static final String DEFAULT_TENANT = "t-default";

    /** The headers the README says the shaper writes and therefore drops from input. */
    private static final List<String> WRITTEN_BY_SHAPER = List.of("shaper.queued.ms", "shaper.released.ms",
            "shaper.reason", "shaper.retry.after.ms", "shaper.detail", "shaper.omitted", "shaper.source.topic",
            "shaper.source.partition", "shaper.source.offset");
    /** The headers a rejection adds (README, Rejections). */
    private static final Set<String> REJECTION_HEADERS = Set.of(ShaperHeaders.REASON, ShaperHeaders.RETRY_AFTER_MS,
            ShaperHeaders.DETAIL, ShaperHeaders.SOURCE_TOPIC, ShaperHeaders.SOURCE_PARTITION,
            ShaperHeaders.SOURCE_OFFSET, ShaperHeaders.OMITTED);
    /** The reasons whose rejections carry a retry-after (README, "retry?" column). */
    private static final Set<RejectReason> RETRIABLE = Set.of(RejectReason.RATE_LIMITED, RejectReason.QUEUE_FULL,
            RejectReason.DELAY_EXCEEDED);
    /** What the shaper reserves on a shaped record for its own headers: two longs' worth of digits. */
    private static final long SHAPER_HEADER_BYTES = RecordSize.header(ShaperHeaders.QUEUED_MS.length(), 20)
            + RecordSize.header(ShaperHeaders.RELEASED_MS.length(), 20);

    /**
     * Rules matched against the record key (shaping) and the admission key (admission): two tenants with their
     * own admission buckets, and three record keys with tight queues. The intervals leave seconds of slack: each
     * queue case needs its records to arrive within one interval of the key's first, even on a loaded machine.
     */
    private static final String RULES = """
            rules:
              - exact: "t-tight"
                admission.rate: 0.001
                admission.burst: 2
              - exact: "t-whale"
                admission.rate: 1000
                admission.burst: 1000000
              - exact: "no-queue"
                rate: 0.1
                max.queue: 0
              - exact: "short-delay"
                rate: 0.1
                max.delay.ms: 1000
              - exact: "slow"
                rate: 1
            """;

    /** How long a shaped record waited: not at all (it passed at once) or some time (it was queued). */
    private enum Wait { NONE, SOME }

    /** What a case must come to. */
    private sealed interface Outcome permits Shaped, Rejected {
    }

    private record Shaped(Wait waited) implements Outcome {
        @Override
        public String toString() {
            return waited == Wait.NONE ? "shaped" : "shaped after a wait";
        }
    }

    /**
     * @param omitted    the expected {@code shaper.omitted}, null when the rejected record is whole
     * @param detailPart text the detail must contain, or null
     */
    private record Rejected(RejectReason reason, String omitted, String detailPart) implements Outcome {
        @Override
        public String toString() {
            return reason + (omitted == null ? "" : " without " + omitted);
        }
    }

    private static Shaped shaped() {
        return new Shaped(Wait.NONE);
    }

    private static Shaped shapedAfterWait() {
        return new Shaped(Wait.SOME);
    }

    private static Rejected rejected(RejectReason reason) {
        return new Rejected(reason, null, null);
    }

    private static Rejected rejected(RejectReason reason, String detailPart) {
        return new Rejected(reason, null, detailPart);
    }

    private static Rejected rejectedWithout(RejectReason reason, String omitted) {
        return new Rejected(reason, omitted, null);
    }

    /** One input record of the catalogue, with its id header and, unless a case changes it, the default tenant. */
    private static final class Case {
        final String id;
        final Outcome expected;
        byte[] key;
        byte[] value = utf8("value");
        Long timestamp;
        final List<Header> headers = new ArrayList<>();
        Consumer<ConsumerRecord<byte[], byte[]>> extraCheck = r -> { };
        RecordMetadata sent;

        Case(String id, Outcome expected) {
            this.id = id;
            this.expected = expected;
            this.key = utf8("k-" + id);
            headers.add(new RecordHeader(ID, utf8(id)));
            headers.add(new RecordHeader(TENANT, utf8(DEFAULT_TENANT)));
        }

        Case key(byte[] k) {
            key = k;
            return this;
        }

        Case value(byte[] v) {
            value = v;
            return this;
        }

        Case timestamp(long t) {
            timestamp = t;
            return this;
        }

        Case header(String name, byte[] v) {
            headers.add(new RecordHeader(name, v));
            return this;
        }

        Case header(String name, String v) {
            return header(name, v == null ? null : utf8(v));
        }

        Case cost(String cost) {
            return header(ShaperHeaders.COST, cost);
        }

        Case tenant(byte[] tenant) {
            return withoutTenant().header(TENANT, tenant);
        }

        Case withoutTenant() {
            headers.removeIf(h -> h.key().equals(TENANT));
            return this;
        }

        /** A value of the size that makes the record's shaped form {@code delta} bytes over the output limit. */
        Case valueAtOutputLimit(int delta) {
            long rest = RecordSize.of(key.length, 0, RecordSize.headerBytes(new RecordHeaders(headers)));
            value = filled((int) (OUTPUT_MAX_MESSAGE_BYTES - SHAPER_HEADER_BYTES - rest + delta), 'v');
            return this;
        }

        Case then(Consumer<ConsumerRecord<byte[], byte[]>> check) {
            extraCheck = check;
            return this;
        }

        ProducerRecord<byte[], byte[]> toRecord() {
            return new ProducerRecord<>(IN, 0, timestamp, key, value, new RecordHeaders(headers));
        }

        /** The input headers the shaper keeps: all but those it writes itself. */
        List<String> keptHeaders() {
            return describe(headers.stream().filter(h -> !WRITTEN_BY_SHAPER.contains(h.key())).toList());
        }
    }

    private final List<Case> cases = new ArrayList<>();

    private Case add(String id, Outcome expected) {
        Case c = new Case(id, expected);
        cases.add(c);
        return c;
    }

    private void catalogue() {
        // Keys and values
        add("null key", rejected(RejectReason.INVALID_KEY)).key(null);
        add("empty key", shaped()).key(new byte[0]);
        add("key not UTF-8", shaped()).key(new byte[] {0, (byte) 0xFF, (byte) 0xFE, (byte) 0xC3, 0x28});
        add("key of 10,000 bytes", shaped()).key(filled(10_000, 'k'));
        add("key over both topic limits", rejectedWithout(RejectReason.RECORD_TOO_LARGE, "value,key"))
                .key(filled(TOO_LARGE_FOR_ALL, 'k'));
        add("empty value", shaped()).value(new byte[0]);
        add("null value (tombstone)", shaped()).value(null);
        add("value just fits the output topic", shaped()).valueAtOutputLimit(0);
        add("value one byte over the output topic", rejected(RejectReason.RECORD_TOO_LARGE,
                "max.message.bytes of topic " + OUT)).valueAtOutputLimit(1);
        add("value over both topic limits", rejectedWithout(RejectReason.RECORD_TOO_LARGE, "value"))
                .value(filled(TOO_LARGE_FOR_ALL, 'v'));
        add("value over both topic limits, invalid cost", rejectedWithout(RejectReason.INVALID_COST, "value"))
                .value(filled(TOO_LARGE_FOR_ALL, 'v')).cost("x");
        // Timestamps (a negative one the producer refuses to send)
        add("timestamp 0", shaped()).timestamp(0);
        add("timestamp 50 minutes ahead", shaped()).timestamp(System.currentTimeMillis() + 50 * 60_000L);

        // The cost header
        for (String bad : List.of("0", "-1", "+3", " 3", "3 ", "\uFF13" /* fullwidth 3 */,
                "\u0663" /* Arabic-Indic 3 */, "1.5", "1e3", "", "1000001", "18446744073709551617")) {
            add("cost \"" + bad + "\"", rejected(RejectReason.INVALID_COST)).cost(bad);
        }
        add("cost header with a null value", rejected(RejectReason.INVALID_COST)).cost(null);
        add("two cost headers", rejected(RejectReason.INVALID_COST, "2 shaper.cost headers")).cost("1").cost("1");
        add("cost \"3\"", shaped()).cost("3");
        add("cost \"007\"", shaped()).cost("007");
        add("cost 1000000 within the tenant's burst", shaped()).cost("1000000").tenant(utf8("t-whale"));
        add("cost 1000000 above the default burst", rejected(RejectReason.INVALID_COST, "admission burst"))
                .cost("1000000");

        // The admission key header
        add("admission header missing", rejected(RejectReason.INVALID_ADMISSION_KEY)).withoutTenant();
        add("admission header empty", rejected(RejectReason.INVALID_ADMISSION_KEY)).tenant(new byte[0]);
        add("admission header with a null value", rejected(RejectReason.INVALID_ADMISSION_KEY)).withoutTenant()
                .header(TENANT, (byte[]) null);
        add("admission key not UTF-8", shaped()).tenant(new byte[] {(byte) 0xFF, (byte) 0xFE});
        add("tenant's burst taken", shaped()).tenant(utf8("t-tight")).cost("2");
        add("tenant out of tokens", rejected(RejectReason.RATE_LIMITED)).tenant(utf8("t-tight"))
                .then(r -> assertThat(Long.parseLong(header(r, ShaperHeaders.RETRY_AFTER_MS)))
                        .as("retry-after of a 1-token refill at 0.001/s").isBetween(900_000L, 1_000_000L));

        // The shaper's own headers on input
        for (String forged : WRITTEN_BY_SHAPER) {
            add("forged " + forged, shaped()).header(forged, "12345");
        }
        Case republished = add("re-published rejected record", shaped());
        WRITTEN_BY_SHAPER.forEach(name -> republished.header(name, name.equals(ShaperHeaders.REASON) ? "QUEUE_FULL"
                : "7"));
        Case forgedRejected = add("forged headers on a rejected record", rejected(RejectReason.INVALID_COST));
        forgedRejected.cost("-1");
        WRITTEN_BY_SHAPER.forEach(name -> forgedRejected.header(name, "99"));
        add("shaper-like headers that are not the shaper's", shaped()).header("shaper.custom", "c")
                .header("Shaper.Reason", "mine");

        // Other headers
        Case many = add("1,000 small headers", shaped());
        for (int i = 0; i < 1_000; i++) {
            many.header(String.format("h%03d", i), "x");
        }
        // Its own 1,002 headers and no shaper.queued.ms: it passed at once.
        many.then(r -> assertThat(r.headers().toArray()).hasSize(1_002));
        Case huge = add("50 KB of headers", rejectedWithout(RejectReason.RECORD_TOO_LARGE, "value,key,headers"));
        for (int i = 0; i < 50; i++) {
            huge.header("big-" + i, filled(1_000, 'h'));
        }
        add("header with a null value", shaped()).header("note", (byte[]) null);
        add("header with a non-ASCII name", shaped()).header("заголовок-\uD83D\uDD11", "значение");
        add("two headers of one name", shaped()).header("dup", "a").header("dup", "b");

        // The queues: a key that never queues, one with a short delay bound, one that queues odd records
        add("no-queue: first", shaped()).key(utf8("no-queue"));
        add("no-queue: second", rejected(RejectReason.QUEUE_FULL)).key(utf8("no-queue"))
                .then(r -> assertThat(retryAfter(r)).isBetween(1L, 10_000L));
        // Without a timestamp, their wait counts from their arrival: the time a busy machine takes to bring a record
        // to the shaper is no part of this case (BoundedWaitsTopologyTest has the records that arrive late).
        add("short-delay: first", shaped()).key(utf8("short-delay")).timestamp(0);
        add("short-delay: second", rejected(RejectReason.DELAY_EXCEEDED, "the most allowed is 1000 ms"))
                .key(utf8("short-delay")).timestamp(0).then(r -> assertThat(retryAfter(r)).isBetween(1L, 9_000L));
        add("slow: first", shaped()).key(utf8("slow"));
        add("slow: queued, header with a null value", shapedAfterWait()).key(utf8("slow")).header("note", (byte[]) null);
        add("slow: queued tombstone", shapedAfterWait()).key(utf8("slow")).value(null);
        add("slow: queued, non-ASCII header name, forged queued.ms", shapedAfterWait()).key(utf8("slow"))
                .header("ключ", "v").header(ShaperHeaders.QUEUED_MS, "999999");
        add("slow: queued, timestamp 0", shapedAfterWait()).key(utf8("slow")).timestamp(0);
        add("slow: queued, cost 2", shapedAfterWait()).key(utf8("slow")).cost("2");
    }

    @Test
    @Timeout(120)
    void shouldGiveEveryOddRecordItsDocumentedOutcomeAndKeepRunning() throws Exception {
        catalogue();
        try (KafkaBroker broker = KafkaBroker.start()) {
            broker.createTopics(1, IN);
            broker.createTopics(1, Map.of("max.message.bytes", Integer.toString(OUTPUT_MAX_MESSAGE_BYTES)), OUT);
            broker.createTopics(1, Map.of("max.message.bytes", Integer.toString(REJECTED_MAX_MESSAGE_BYTES)), REJECTED);
            Path rules = Files.createTempFile("catalogue-rules", ".yaml");
            Files.writeString(rules, RULES);
            Map<String, Object> settings = ShaperInstance.baseSettings(broker.bootstrapServers(), "catalogue-it");
            settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, IN);
            settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, OUT);
            settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, REJECTED);
            settings.put(ShaperConfig.SHAPING_TICK_MS_CONFIG, 10);
            settings.put(ShaperConfig.ADMISSION_KEY_HEADER_CONFIG, TENANT);
            settings.put(ShaperConfig.ADMISSION_RATE_CONFIG, 1000);
            settings.put(ShaperConfig.ADMISSION_BURST_CONFIG, 100_000);
            settings.put(ShaperConfig.RULES_FILE_CONFIG, rules.toString());
            try (ShaperInstance shaper = ShaperInstance.start(settings);
                 KafkaProducer<byte[], byte[]> producer = producer(broker.bootstrapServers());
                 KafkaConsumer<byte[], byte[]> consumer = consumer(broker.bootstrapServers())) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
                consumer.subscribe(List.of(OUT, REJECTED));
                long started = System.nanoTime();

                // Given: every case, sent in one go (the queue cases rely on their records arriving close together)
                List<Future<RecordMetadata>> sends = new ArrayList<>();
                for (Case c : cases) {
                    sends.add(producer.send(c.toRecord()));
                }
                producer.flush();
                Map<Long, Case> byOffset = new HashMap<>();
                Map<String, Case> byId = new LinkedHashMap<>();
                for (int i = 0; i < cases.size(); i++) {
                    Case c = cases.get(i);
                    c.sent = sends.get(i).get();
                    byOffset.put(c.sent.offset(), c);
                    assertThat(byId.put(c.id, c)).as("case ids are unique").isNull();
                }

                // When: the shaper has written an outcome for each of them
                Output output = new Output();
                Await.until(() -> "cases without an outcome: " + output.unaccounted(cases) + "; shaper "
                        + shaper.streams().state(), Duration.ofSeconds(30), () -> {
                    output.poll(consumer);
                    return output.unaccounted(cases).isEmpty();
                });

                // And: an ordinary record after them all
                ProducerRecord<byte[], byte[]> ordinary = new ProducerRecord<>(IN, utf8("k-ordinary"), utf8("last"));
                ordinary.headers().add(ID, utf8("ordinary")).add(TENANT, utf8(DEFAULT_TENANT));
                producer.send(ordinary).get();
                Await.until(() -> "the ordinary record; shaper " + shaper.streams().state(), Duration.ofSeconds(30),
                        () -> {
                            output.poll(consumer);
                            return output.shapedById.containsKey("ordinary");
                        });
                output.drainTo(consumer, consumer.endOffsets(List.of(new TopicPartition(OUT, 0),
                        new TopicPartition(REJECTED, 0))));
                LOG.info("{} cases handled in {} ms", cases.size(), (System.nanoTime() - started) / 1_000_000);
                logTable(output);

                // Then: the shaper still runs, and each case came out once, as the README says
                assertThat(shaper.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
                SoftAssertions softly = new SoftAssertions();
                for (Case c : cases) {
                    List<ConsumerRecord<byte[], byte[]>> shapedOnes = output.shapedById.getOrDefault(c.id, List.of());
                    List<ConsumerRecord<byte[], byte[]>> rejectedOnes =
                            output.rejectedByOffset.getOrDefault(c.sent.offset(), List.of());
                    softly.assertThat(shapedOnes.size() + rejectedOnes.size()).as(c.id + ": records out").isEqualTo(1);
                    if (c.expected instanceof Shaped s) {
                        softly.assertThat(shapedOnes).as(c.id + ": shaped").hasSize(1);
                        if (shapedOnes.size() == 1) {
                            softly.check(() -> checkShaped(c, s, shapedOnes.get(0)));
                        }
                    } else if (c.expected instanceof Rejected r) {
                        softly.assertThat(rejectedOnes).as(c.id + ": rejected").hasSize(1);
                        if (rejectedOnes.size() == 1) {
                            softly.check(() -> checkRejected(c, r, rejectedOnes.get(0)));
                        }
                    }
                }
                // And: nothing else came out: no record without a case, and the ordinary one once
                softly.assertThat(output.shapedById.keySet()).as("ids of shaped records")
                        .isSubsetOf(concat(byId.keySet(), "ordinary"));
                softly.assertThat(output.shapedById.get("ordinary")).as("the ordinary record").hasSize(1);
                softly.assertThat(output.rejectedByOffset.keySet()).as("source offsets of rejected records")
                        .isSubsetOf(byOffset.keySet());
                softly.assertThat(output.shapedWithoutId).as("shaped records without an id").isEmpty();
                softly.assertThat(output.rejectedWithoutOffset).as("rejected records without a source offset").isEmpty();
                // And: the queued key kept its order
                softly.assertThat(output.shapedOrder.stream().filter(id -> id.startsWith("slow:")).toList())
                        .as("order of key slow").isEqualTo(cases.stream().map(c -> c.id)
                                .filter(id -> id.startsWith("slow:")).toList());
                softly.assertAll();
                assertThat(shaper.streams().state()).isEqualTo(KafkaStreams.State.RUNNING);
            }
        }
    }

    /** What the shaper wrote, read with read_committed: shaped records by id, rejected records by source offset. */
    private static final class Output {
        final Map<String, List<ConsumerRecord<byte[], byte[]>>> shapedById = new HashMap<>();
        final List<String> shapedOrder = new ArrayList<>();
        final List<ConsumerRecord<byte[], byte[]>> shapedWithoutId = new ArrayList<>();
        final Map<Long, List<ConsumerRecord<byte[], byte[]>>> rejectedByOffset = new HashMap<>();
        final List<ConsumerRecord<byte[], byte[]>> rejectedWithoutOffset = new ArrayList<>();

        void poll(KafkaConsumer<byte[], byte[]> consumer) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(100))) {
                if (r.topic().equals(OUT)) {
                    String id = header(r, ID);
                    if (id == null) {
                        shapedWithoutId.add(r);
                    } else {
                        shapedById.computeIfAbsent(id, k -> new ArrayList<>()).add(r);
                        shapedOrder.add(id);
                    }
                } else {
                    String offset = header(r, ShaperHeaders.SOURCE_OFFSET);
                    if (offset == null) {
                        rejectedWithoutOffset.add(r);
                    } else {
                        rejectedByOffset.computeIfAbsent(Long.parseLong(offset), k -> new ArrayList<>()).add(r);
                    }
                }
            }
        }

        /** Reads on until the consumer has seen every committed record up to {@code endOffsets}. */
        void drainTo(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> endOffsets) {
            Await.until("the end of the output and rejected topics " + endOffsets, Duration.ofSeconds(30), () -> {
                poll(consumer);
                return endOffsets.entrySet().stream().allMatch(e -> consumer.position(e.getKey()) >= e.getValue());
            });
        }

        List<String> unaccounted(List<Case> cases) {
            return cases.stream().filter(c -> !shapedById.containsKey(c.id)
                    && !rejectedByOffset.containsKey(c.sent.offset())).map(c -> c.id).toList();
        }

        String describe(Case c) {
            List<String> outcomes = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : shapedById.getOrDefault(c.id, List.of())) {
                outcomes.add("shaped, queued " + header(r, ShaperHeaders.QUEUED_MS) + " ms");
            }
            for (ConsumerRecord<byte[], byte[]> r : rejectedByOffset.getOrDefault(c.sent.offset(), List.of())) {
                String retry = header(r, ShaperHeaders.RETRY_AFTER_MS);
                String omitted = header(r, ShaperHeaders.OMITTED);
                outcomes.add(header(r, ShaperHeaders.REASON) + (retry == null ? "" : ", retry after " + retry + " ms")
                        + (omitted == null ? "" : ", without " + omitted));
            }
            return outcomes.isEmpty() ? "NOTHING" : String.join(" + ", outcomes);
        }
    }

    private void logTable(Output output) {
        StringBuilder table = new StringBuilder("Bad-input catalogue, case -> expected | seen:");
        for (Case c : cases) {
            table.append(String.format("%n  %-58s -> %-36s | %s", c.id, c.expected, output.describe(c)));
        }
        LOG.info("{}", table);
    }

    private static void checkShaped(Case c, Shaped expected, ConsumerRecord<byte[], byte[]> out) {
        assertThat(out.key()).as(c.id + ": key").isEqualTo(c.key);
        assertThat(out.value()).as(c.id + ": value").isEqualTo(c.value);
        assertThat(out.timestamp()).as(c.id + ": timestamp").isEqualTo(c.sent.timestamp());
        assertThat(describe(out.headers(), name -> !name.equals(ShaperHeaders.QUEUED_MS)))
                .as(c.id + ": headers, less the shaper's").isEqualTo(c.keptHeaders());
        List<Header> queued = all(out.headers(), ShaperHeaders.QUEUED_MS);
        if (expected.waited() == Wait.NONE) {
            // A record that passed at once carries no shaper.queued.ms (a forged one is removed).
            assertThat(queued).as(c.id + ": " + ShaperHeaders.QUEUED_MS + " headers").isEmpty();
        } else {
            assertThat(queued).as(c.id + ": " + ShaperHeaders.QUEUED_MS + " headers").hasSize(1);
            long queuedMs = Long.parseLong(new String(queued.get(0).value(), StandardCharsets.UTF_8));
            assertThat(queuedMs).as(c.id + ": queued ms").isPositive();
        }
        c.extraCheck.accept(out);
    }

    private static void checkRejected(Case c, Rejected expected, ConsumerRecord<byte[], byte[]> out) {
        for (String name : List.of(ShaperHeaders.REASON, ShaperHeaders.DETAIL, ShaperHeaders.SOURCE_TOPIC,
                ShaperHeaders.SOURCE_PARTITION, ShaperHeaders.SOURCE_OFFSET)) {
            assertThat(all(out.headers(), name)).as(c.id + ": " + name + " headers").hasSize(1);
        }
        assertThat(header(out, ShaperHeaders.REASON)).as(c.id + ": reason").isEqualTo(expected.reason().name());
        assertThat(header(out, ShaperHeaders.SOURCE_TOPIC)).as(c.id + ": source topic").isEqualTo(IN);
        assertThat(header(out, ShaperHeaders.SOURCE_PARTITION)).as(c.id + ": source partition").isEqualTo("0");
        assertThat(header(out, ShaperHeaders.SOURCE_OFFSET)).as(c.id + ": source offset")
                .isEqualTo(Long.toString(c.sent.offset()));
        if (RETRIABLE.contains(expected.reason())) {
            assertThat(all(out.headers(), ShaperHeaders.RETRY_AFTER_MS)).as(c.id + ": retry-after headers").hasSize(1);
            assertThat(retryAfter(out)).as(c.id + ": retry-after").isPositive();
        } else {
            assertThat(all(out.headers(), ShaperHeaders.RETRY_AFTER_MS)).as(c.id + ": retry-after headers").isEmpty();
        }
        if (expected.detailPart() != null) {
            assertThat(header(out, ShaperHeaders.DETAIL)).as(c.id + ": detail").contains(expected.detailPart());
        }
        String omitted = expected.omitted() == null ? "" : expected.omitted();
        if (omitted.isEmpty()) {
            assertThat(all(out.headers(), ShaperHeaders.OMITTED)).as(c.id + ": omitted headers").isEmpty();
        } else {
            assertThat(all(out.headers(), ShaperHeaders.OMITTED)).as(c.id + ": omitted headers").hasSize(1);
            assertThat(header(out, ShaperHeaders.OMITTED)).as(c.id + ": omitted").isEqualTo(omitted);
        }
        assertThat(out.value()).as(c.id + ": value").isEqualTo(omitted.contains("value") ? null : c.value);
        assertThat(out.key()).as(c.id + ": key").isEqualTo(omitted.contains("key") ? null : c.key);
        assertThat(out.timestamp()).as(c.id + ": timestamp").isEqualTo(c.sent.timestamp());
        assertThat(describe(out.headers(), name -> !REJECTION_HEADERS.contains(name)))
                .as(c.id + ": the record's own headers")
                .isEqualTo(omitted.contains("headers") ? List.of() : c.keptHeaders());
        c.extraCheck.accept(out);
    }

    private static long retryAfter(ConsumerRecord<byte[], byte[]> record) {
        return Long.parseLong(header(record, ShaperHeaders.RETRY_AFTER_MS));
    }

    private static List<Header> all(Headers headers, String name) {
        return StreamSupport.stream(headers.headers(name).spliterator(), false).toList();
    }

    private static List<String> describe(Headers headers, java.util.function.Predicate<String> keep) {
        return describe(Arrays.stream(headers.toArray()).filter(h -> keep.test(h.key())).toList());
    }

    /** Headers as comparable text: name, then the value quoted when it is printable UTF-8, in hex otherwise. */
    private static List<String> describe(List<Header> headers) {
        return headers.stream().map(h -> h.key() + "=" + describe(h.value())).toList();
    }

    private static String describe(byte[] value) {
        if (value == null) {
            return "null";
        }
        try {
            String text = StandardCharsets.UTF_8.newDecoder().decode(java.nio.ByteBuffer.wrap(value)).toString();
            if (text.codePoints().noneMatch(Character::isISOControl)) {
                return '"' + text + '"';
            }
        } catch (java.nio.charset.CharacterCodingException e) {
            // not text: hex below
        }
        return "0x" + HexFormat.of().formatHex(value);
    }

    private static String header(ConsumerRecord<byte[], byte[]> record, String name) {
        Header header = record.headers().lastHeader(name);
        return header == null || header.value() == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }

    private static Set<String> concat(Set<String> ids, String one) {
        Set<String> all = new java.util.HashSet<>(ids);
        all.add(one);
        return all;
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static byte[] filled(int length, char c) {
        byte[] bytes = new byte[length];
        Arrays.fill(bytes, (byte) c);
        return bytes;
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrapServers) {
        return new KafkaProducer<>(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ProducerConfig.ACKS_CONFIG, "all",
                ProducerConfig.LINGER_MS_CONFIG, 5), new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static KafkaConsumer<byte[], byte[]> consumer(String bootstrapServers) {
        return new KafkaConsumer<>(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers,
                ConsumerConfig.GROUP_ID_CONFIG, "catalogue-it-reader",
                ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest",
                ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed"),
                new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }
}
