package dev.shaper.internals.http;

import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.capacity.TaskBacklogs;
import dev.shaper.internals.rules.KeyRule;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.shaping.KeyState;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.store.KeyStateQuery;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Semaphore;
import java.util.function.LongSupplier;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.errors.InvalidStateStoreException;
import org.apache.kafka.streams.state.HostInfo;

/**
 * {@code GET /buckets/{key}}: one key's queue (records, units, bytes, next release), how long a record of the key
 * arriving now would wait (behind the key's own schedule and the task's backlog in front of the total rate), and the
 * rules that apply to it, answered by the instance that hosts the key's partition. Another instance forwards the request there
 * (found through Kafka Streams' metadata, which needs {@code application.server}), once: a forwarded request
 * is never forwarded again, so a rebalance cannot make requests bounce between instances. Without
 * {@code application.server} an instance answers for the partitions it hosts and says so for the others.
 */
final class BucketsEndpoint {

    /** Marks a forwarded request; its value is the forwarding instance. */
    static final String FORWARDED_HEADER = "X-Shaper-Forwarded-By";
    private static final Duration FORWARD_TIMEOUT = Duration.ofSeconds(2);
    /**
     * Forwards waiting on other instances at once: the HTTP server's few threads also answer the health probes,
     * which must not queue behind slow forwards (an orchestrator would restart a healthy instance).
     */
    private static final int MAX_CONCURRENT_FORWARDS = 2;

    /** An HTTP answer: status and JSON body. */
    record Answer(int status, Map<String, Object> body) {
    }

    private final KafkaStreams streams;
    private final String storeName;
    private final RuleBook rules;
    private final String admissionKeyHeader;
    private final HostInfo self;
    private final int inputPartitions;
    private final LongSupplier wallClockMs;
    private final TaskBacklogs backlogs;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(FORWARD_TIMEOUT).build();
    private final Semaphore forwards = new Semaphore(MAX_CONCURRENT_FORWARDS);

    /**
     * @param self this instance's {@code application.server}, or null when unset (then only local partitions
     *             can be answered)
     * @param inputPartitions the input topic's partition count, which places a key when {@code self} is null
     * @param backlogs        the local tasks' backlogs in front of the total rate
     */
    BucketsEndpoint(KafkaStreams streams, String storeName, RuleBook rules, String admissionKeyHeader, HostInfo self,
                    int inputPartitions, TaskBacklogs backlogs, LongSupplier wallClockMs) {
        this.backlogs = backlogs;
        this.streams = streams;
        this.storeName = storeName;
        this.rules = rules;
        this.admissionKeyHeader = admissionKeyHeader;
        this.self = self;
        this.inputPartitions = inputPartitions;
        this.wallClockMs = wallClockMs;
    }

    Answer answer(String rawKey, String forwardedBy) {
        byte[] key;
        try {
            key = KeyPath.decode(rawKey);
        } catch (IllegalArgumentException e) {
            return error(400, e.getMessage());
        }
        try {
            return locate(key, forwardedBy);
        } catch (InvalidStateStoreException e) { // includes StreamsNotStartedException and StreamsStoppedException
            // Kafka Streams changed state between our check and the query (starting, rebalancing, stopping).
            return error(503, "Kafka Streams cannot be queried right now (" + e.getClass().getSimpleName()
                    + "); ask again shortly");
        }
    }

    private Answer locate(byte[] key, String forwardedBy) {
        KafkaStreams.State state = streams.state();
        if (state != KafkaStreams.State.RUNNING && state != KafkaStreams.State.REBALANCING) {
            return error(503, "Kafka Streams is " + state + " on this instance; ask again when it is ready");
        }
        if (self == null) {
            // Without application.server Kafka Streams keeps no metadata at all (queryMetadataForKey answers
            // NOT_AVAILABLE, partition -1, for every key): place the key ourselves and ask the local store.
            return answerLocally(key, KeyPartition.of(key, inputPartitions));
        }
        KeyQueryMetadata where = streams.queryMetadataForKey(storeName, key, new ByteArraySerializer());
        if (where == null || where.partition() < 0) {
            return error(503, "the key's partition is not known right now (rebalancing); ask again shortly");
        }
        boolean hostKnown = where.activeHost() != null && !where.activeHost().equals(HostInfo.unavailable());
        if (hostKnown && where.activeHost().equals(self)) {
            return answerLocally(key, where.partition());
        }
        if (!hostKnown) {
            return error(503, "no instance hosts partition " + where.partition() + " right now (rebalancing);"
                    + " ask again shortly");
        }
        if (forwardedBy != null) {
            return error(503, "forwarded by " + forwardedBy + ", but partition " + where.partition()
                    + " is hosted by " + describe(where.activeHost()) + " now (rebalancing); ask again");
        }
        return forward(where.activeHost(), key);
    }

    private Answer answerLocally(byte[] key, int partition) {
        KeyStateQuery.Outcome outcome = KeyStateQuery.query(streams, storeName, partition, key);
        String keyText = new String(key, StandardCharsets.UTF_8);
        if (outcome instanceof KeyStateQuery.Outcome.NotHere notHere) {
            String notHosted = "partition " + partition + " is not hosted by this instance (" + notHere.why() + ")";
            if (self != null) {
                return error(503, notHosted + "; ask again");
            }
            // Settled (RUNNING), another instance hosts it and asking again here will not help: 421 Misdirected
            // Request. While the tasks move, the partition may yet come here: 503, ask again.
            boolean settled = streams.state() == KafkaStreams.State.RUNNING;
            return error(settled ? 421 : 503, notHosted + "; without application.server this instance cannot"
                    + " forward: ask the instance that hosts it, or set application.server to"
                    + " host:shaper.http.port on every instance so that any of them forwards the request");
        }
        // One rule lookup for the whole answer. Not rules.ruleFor: that one remembers answers in a map that
        // only a stream thread may touch.
        Optional<KeyRule> match = rules.firstMatch(keyText);
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("key", keyText);
        body.put("partition", partition);
        body.put("host", self == null ? null : describe(self));
        Long capacityWaitMs = capacityWaitMs(partition);
        body.put("capacityWaitMs", capacityWaitMs);
        if (outcome instanceof KeyStateQuery.Outcome.Absent) {
            body.put("expectedWaitMs", capacityWaitMs == null ? 0 : capacityWaitMs);
            body.put("error", "no state for this key: nothing is queued and its next record would leave at once"
                    + " (an idle key's state is forgotten), or the key was never seen");
            body.put("rules", rulesOf(match));
            return new Answer(404, body);
        }
        KeyStateQuery.Snapshot snapshot = ((KeyStateQuery.Outcome.Found) outcome).snapshot();
        KeyState state = snapshot.state();
        ShapingRule rule = match.map(KeyRule::shaping).orElse(rules.defaults());
        body.put("queuedRecords", state.queuedRecords());
        body.put("queuedUnits", state.queuedUnits());
        body.put("queuedBytes", state.queuedBytes());
        body.put("nextReleaseMs", nextReleaseMs(state, rule, snapshot.virtualNowNanos()));
        body.put("expectedWaitMs", expectedWaitMs(state, snapshot.virtualNowNanos(), capacityWaitMs));
        body.put("stateAsOf", "the partition's last commit");
        body.put("rules", rulesOf(match));
        return new Answer(200, body);
    }

    /**
     * When the key's first queued record is due, as a wall-clock estimate: the store keeps times in the task's
     * virtual time (see VirtualClock), saved at each commit, so the estimate is good to about one commit interval.
     */
    private Long nextReleaseMs(KeyState state, ShapingRule rule, Long virtualNowNanos) {
        if (state.queuedRecords() == 0 || virtualNowNanos == null) {
            return null;
        }
        long headDue = state.tatNanos() - rule.intervalNanos(state.queuedUnits());
        long due = Math.max(headDue, state.releaseTatNanos());
        return wallClockMs.getAsLong() + Math.max(0, due - virtualNowNanos) / 1_000_000L;
    }

    /**
     * How long the task's queued units need at its part of the total rate, as its last tick saw it; null without a
     * total rate (or before the task's first tick here).
     */
    private Long capacityWaitMs(int partition) {
        Long nanos = backlogs.backlogNanos(partition);
        return nanos == null ? null : nanos / 1_000_000L;
    }

    /**
     * How long a record of this key arriving now would wait: until the key's schedule lets its next record go, and
     * no less than the task's backlog in front of the total rate. Good to about one commit interval (see
     * {@link #nextReleaseMs}).
     */
    private static Long expectedWaitMs(KeyState state, Long virtualNowNanos, Long capacityWaitMs) {
        long own = virtualNowNanos == null ? 0 : Math.max(0, state.tatNanos() - virtualNowNanos) / 1_000_000L;
        return Math.max(own, capacityWaitMs == null ? 0 : capacityWaitMs);
    }

    /** The effective rules of a key whose first matching rule is {@code match} (empty: the defaults). */
    private Map<String, Object> rulesOf(Optional<KeyRule> match) {
        Map<String, Object> out = new LinkedHashMap<>();
        ShapingRule shaping = match.map(KeyRule::shaping).orElse(rules.defaults());
        out.put("matched", match.map(r -> r.matcher().describe()).orElse("defaults"));
        out.put("rate", shaping.ratePerSecond());
        out.put("maxQueue", shaping.maxQueue());
        out.put("maxDelayMs", shaping.maxDelayMs());
        out.put("mode", shaping.shadow() ? "shadow" : "enforce");
        AdmissionPolicy admission = match.map(KeyRule::admission).orElse(null);
        if (admission == null) {
            admission = rules.defaultAdmission();
        }
        Map<String, Object> admissionOut = new LinkedHashMap<>();
        admissionOut.put("keyedBy", admissionKeyHeader == null ? "record key" : "header " + admissionKeyHeader);
        if (admissionKeyHeader != null) {
            // Admission is keyed by the header's value, which this request does not know.
            admissionOut.put("note", "the rules below are for this text as an admission key; a record's admission"
                    + " bucket is the one of its " + admissionKeyHeader + " header");
        }
        // rate and burst as before for one limit (per second); every limit, with its period, under limits.
        AdmissionLimit first = admission == null || admission.size() != 1 ? null : admission.limit(0);
        admissionOut.put("rate", first == null ? null : first.ratePerSecond());
        admissionOut.put("burst", first == null ? null : first.burst());
        admissionOut.put("algorithm", admission == null ? null : admission.algorithm().configName());
        admissionOut.put("mode", admission == null ? null : admission.shadow() ? "shadow" : "enforce");
        List<Map<String, Object>> limits = new ArrayList<>();
        if (admission != null) {
            for (AdmissionLimit limit : admission.limits()) {
                Map<String, Object> one = new LinkedHashMap<>();
                one.put("rate", limit.amount());
                one.put("per", AdmissionLimit.formatPeriod(limit.periodMillis()));
                one.put("burst", admission.algorithm().hasBurst() ? limit.burst() : null);
                limits.add(one);
            }
        }
        admissionOut.put("limits", limits);
        out.put("admission", admissionOut);
        return out;
    }

    private Answer forward(HostInfo host, byte[] key) {
        if (!forwards.tryAcquire()) {
            return error(503, "too many requests are being forwarded to other instances; ask again shortly");
        }
        try {
            // Encoded afresh: the request may have used characters (such as '{') that URI refuses.
            URI uri = URI.create("http://" + describe(host) + "/buckets/" + KeyPath.encode(key));
            HttpRequest request = HttpRequest.newBuilder(uri).timeout(FORWARD_TIMEOUT)
                    .header(FORWARDED_HEADER, describe(self)).GET().build();
            HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
            return new Answer(response.statusCode(), Json.read(response.body()));
        } catch (HttpTimeoutException e) {
            return error(504, "the instance that hosts this key, " + describe(host) + ", did not answer within "
                    + FORWARD_TIMEOUT.toMillis() + " ms");
        } catch (IOException e) {
            return error(502, "the instance that hosts this key, " + describe(host) + ", did not answer: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return error(503, "interrupted while asking " + describe(host));
        } finally {
            forwards.release();
        }
    }

    /** {@code host:port}, with an IPv6 literal in brackets as URIs need it. */
    private static String describe(HostInfo host) {
        String h = host.host();
        return (h.indexOf(':') >= 0 && !h.startsWith("[") ? "[" + h + "]" : h) + ":" + host.port();
    }

    static Answer error(int status, String message) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("error", message);
        return new Answer(status, body);
    }
}
