package dev.shaper;

import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.capacity.adaptive.AdaptiveSettings;
import dev.shaper.internals.capacity.adaptive.CapacityBounds;
import dev.shaper.internals.capacity.adaptive.ControllerKind;
import dev.shaper.internals.redis.RedisLocation;
import dev.shaper.internals.shaping.ReleasePace;
import dev.shaper.internals.shaping.ShapingRule;
import dev.shaper.internals.store.BoundedRocksDbMemory;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.streams.StreamsConfig;

/**
 * The shaper's own settings, all under {@code shaper.}. Every other key given to the shaper is a Kafka
 * Streams (or client) setting and passes through unchanged; {@link #streamsProperties()} returns those,
 * with the shaper's defaults (exactly-once) filled in.
 *
 * <p>A value of the wrong type or out of range, or a {@code shaper.} key that does not exist (a typo),
 * fails with a {@link ConfigException} that names the key, the value and what is expected.
 */
public final class ShaperConfig extends AbstractConfig {

    /** Common prefix of the shaper's own keys. */
    public static final String PREFIX = "shaper.";

    /** Topic the shaper reads requests from. */
    public static final String INPUT_TOPIC_CONFIG = "shaper.input.topic";
    public static final String INPUT_TOPIC_DOC = "Topic the shaper reads requests from. Records are shaped per"
            + " record key; key, value, headers and timestamp are passed on unchanged.";

    /** Topic the shaped records go to. */
    public static final String OUTPUT_TOPIC_CONFIG = "shaper.output.topic";
    public static final String OUTPUT_TOPIC_DOC = "Topic the shaped records are written to, at no more than the"
            + " configured rates. Each record that waited gains the header shaper.queued.ms.";

    /** Whether shaped records also carry the time they were released. */
    public static final String OUTPUT_RELEASED_HEADER_CONFIG = "shaper.output.released.header";
    public static final String OUTPUT_RELEASED_HEADER_DOC = "true: every shaped record also carries the header"
            + " shaper.released.ms, the wall-clock time (epoch ms) at which the shaper released it, which is where"
            + " its rate can be checked exactly and where downstream latency starts. Off by default because it"
            + " adds about 33 bytes to every record, to be carried by the broker and read by every consumer.";

    /** Topic the rejected records go to. */
    public static final String REJECTED_TOPIC_CONFIG = "shaper.rejected.topic";
    public static final String REJECTED_TOPIC_DOC = "Topic for records the shaper refuses (queue full, delay too"
            + " long, invalid input), with the headers shaper.reason, shaper.detail and, where a retry can"
            + " succeed, shaper.retry.after.ms.";

    /** Default rate of each key's leaky bucket. */
    public static final String SHAPING_RATE_CONFIG = "shaper.shaping.rate";
    public static final String SHAPING_RATE_DOC = "Default release rate of each key, in units per second (a"
            + " record is one unit unless its shaper.cost header says more). Fractions are allowed: 0.5 is"
            + " one record every two seconds. Must be > 0. Rules in shaper.rules.file override it per key.";

    /** Default queue bound of each key. */
    public static final String SHAPING_MAX_QUEUE_CONFIG = "shaper.shaping.max.queue";
    public static final String SHAPING_MAX_QUEUE_DOC = "Default number of records one key may have waiting."
            + " A record that would exceed it is rejected with reason QUEUE_FULL. 0 means never queue: what"
            + " cannot leave at once is rejected.";

    /** Bound on the records queued by one task, all its keys together. */
    public static final String SHAPING_MAX_TASK_QUEUE_CONFIG = "shaper.shaping.max.task.queue";
    public static final String SHAPING_MAX_TASK_QUEUE_DOC = "Most records one stream task (one input partition)"
            + " may have waiting, all its keys together. A record that would have to wait beyond it is rejected"
            + " with reason QUEUE_FULL: the state stores and their changelogs stay bounded whatever the number of"
            + " keys.";

    /** Default delay bound of each key. */
    public static final String SHAPING_MAX_DELAY_MS_CONFIG = "shaper.shaping.max.delay.ms";
    public static final String SHAPING_MAX_DELAY_MS_DOC = "Default longest wait, in milliseconds, of a record"
            + " between its timestamp (or its arrival, see shaper.shaping.max.delay.from) and its release. A record"
            + " that would wait longer, behind its key's rate or behind the total rate's backlog, or that arrives"
            + " older than this, is rejected at arrival with reason DELAY_EXCEEDED and a retry-after; a queued"
            + " record that has waited longer than this plus one tick (the total rate's share shrank, or the"
            + " release stalled) is rejected as DELAY_EXCEEDED instead of released late.";

    /** Where a record's wait starts. */
    public static final String SHAPING_MAX_DELAY_FROM_CONFIG = "shaper.shaping.max.delay.from";
    public static final String MAX_DELAY_FROM_TIMESTAMP = "timestamp";
    public static final String MAX_DELAY_FROM_ARRIVAL = "arrival";
    public static final String SHAPING_MAX_DELAY_FROM_DOC = "Where the wait that max.delay.ms bounds starts:"
            + " timestamp (the record's timestamp on the input topic, or its arrival if that is earlier or the"
            + " record has none, 0 or less: what its"
            + " producer and the database see, the time the shaper lagged its input included) or arrival (when the"
            + " shaper reads it). With timestamp, a producer whose clock runs behind makes its records look older.";

    /** Cap on all keys together. */
    public static final String SHAPING_TOTAL_RATE_CONFIG = "shaper.shaping.total.rate";
    public static final String SHAPING_TOTAL_RATE_DOC = "Cap on the release rate of all keys together, in"
            + " units per second (the downstream database's capacity); 0 means no cap. Within a partition it is"
            + " shared among waiting keys in proportion to their rates; across partitions see"
            + " shaper.shaping.total.scope.";

    /** How the total rate is shared across partitions. */
    public static final String SHAPING_TOTAL_SCOPE_CONFIG = "shaper.shaping.total.scope";
    /** {@link #SHAPING_TOTAL_SCOPE_CONFIG}: shared by demand among the partitions an instance runs. */
    public static final String TOTAL_SCOPE_CLUSTER = "cluster";
    /** {@link #SHAPING_TOTAL_SCOPE_CONFIG}: total / partitions for each partition, whatever its demand. */
    public static final String TOTAL_SCOPE_PARTITION = "partition";
    public static final String SHAPING_TOTAL_SCOPE_DOC = "How shaper.shaping.total.rate is shared across the input"
            + " topic's partitions. partition: each partition gets total / partitions, whatever its demand."
            + " cluster: the total is the capacity of the whole application. With shaper.redis.uri set, the"
            + " instances lease their parts of it through Redis by demand (max-min fair), renewed every quarter of"
            + " shaper.capacity.lease.ms; without Redis, or while Redis is down, each instance holds total /"
            + " partitions for each partition it runs. Either way an instance shares what it holds among its"
            + " partitions by demand, so a busy partition uses what idle ones leave, and the instances together"
            + " never exceed the total.";

    /** How long a lease of the cluster-wide capacity stands. */
    public static final String CAPACITY_LEASE_MS_CONFIG = "shaper.capacity.lease.ms";
    public static final String CAPACITY_LEASE_MS_DOC = "With shaper.shaping.total.scope=cluster and Redis: how long,"
            + " in milliseconds, an instance's part of the total rate stands without a renewal. Instances renew"
            + " every quarter of it; a dead instance's part returns to the others within one lease; an instance"
            + " that cannot renew falls back to its static shares two leases after its last renewal, and holds no"
            + " more than its last part until then.";

    /** The most lease renewals per second the application's instances make together. */
    public static final String CAPACITY_RENEWALS_PER_SECOND_CONFIG = "shaper.capacity.renewals.per.second";
    public static final String CAPACITY_RENEWALS_PER_SECOND_DOC = "With shaper.shaping.total.scope=cluster and Redis:"
            + " the most lease renewals per second all instances of the application make together, each one call to"
            + " Redis. While four renewals per shaper.capacity.lease.ms of every live instance stay within it, the"
            + " lease is shaper.capacity.lease.ms; with more instances the lease grows with their number (1,000"
            + " instances at 300 renewals/s: a 13.3 s lease, renewed every 3.3 s), so that the leases cost Redis the"
            + " same however many instances there are, and a dead instance's part and a change of demand take that"
            + " much longer to move. See docs/scaling.md.";

    /** Topic the database writers report their health to. */
    public static final String CAPACITY_FEEDBACK_TOPIC_CONFIG = "shaper.capacity.feedback.topic";
    public static final String CAPACITY_FEEDBACK_TOPIC_DOC = "Topic the database writers behind the output topic"
            + " report their health to: one record per writer per interval, keyed by the writer's id, valued as JSON"
            + " {\"atMs\", \"windowMs\", \"writes\", \"errors\", \"latencyP99Ms\"} (the shaper-feedback module"
            + " publishes them for a Java writer). Every instance reads all of it, outside any consumer group; it must"
            + " exist at start, and one partition is enough. Empty: no feedback.";

    /** Whether the capacity follows the writers' feedback. */
    public static final String CAPACITY_ADAPTIVE_CONFIG = "shaper.capacity.adaptive";
    public static final String CAPACITY_ADAPTIVE_DOC = "true: the capacity (the total rate) follows the writers'"
            + " feedback between shaper.capacity.min.rate and shaper.shaping.total.rate, one decision every"
            + " shaper.capacity.adjust.ms: it falls while their p99 latency is above shaper.capacity.target.latency.ms"
            + " or their error ratio above shaper.capacity.max.error.ratio, and rises back while both are within"
            + " bounds. Needs shaper.shaping.total.rate, shaper.capacity.feedback.topic and"
            + " shaper.shaping.total.scope=cluster. With shaper.redis.uri the instances agree on one decision kept in"
            + " Redis; without it each applies its own. false: the capacity is shaper.shaping.total.rate.";

    /** The lowest capacity of the closed loop. */
    public static final String CAPACITY_MIN_RATE_CONFIG = "shaper.capacity.min.rate";
    public static final String CAPACITY_MIN_RATE_DOC = "With shaper.capacity.adaptive: the lowest the capacity falls"
            + " to, in units per second, however the database does, and where a warm-up starts. 0: a tenth of"
            + " shaper.shaping.total.rate. At most shaper.shaping.total.rate.";

    /** The writers' p99 latency above which the capacity falls. */
    public static final String CAPACITY_TARGET_LATENCY_MS_CONFIG = "shaper.capacity.target.latency.ms";
    public static final String CAPACITY_TARGET_LATENCY_MS_DOC = "With shaper.capacity.adaptive: the writers' p99"
            + " write latency, in milliseconds, above which the capacity falls (the largest of the writers' p99s,"
            + " among those that wrote). Choose it above the p99 the database shows when healthy at the load it should"
            + " take (two to three times it leaves room for noise), and below the latency at which it is in trouble.";

    /** The writers' error ratio above which the capacity falls. */
    public static final String CAPACITY_MAX_ERROR_RATIO_CONFIG = "shaper.capacity.max.error.ratio";
    public static final String CAPACITY_MAX_ERROR_RATIO_DOC = "With shaper.capacity.adaptive: the share of the"
            + " writers' attempted units that may fail, from 0 to 1, above which the capacity falls.";

    /** The time between two decisions of the closed loop. */
    public static final String CAPACITY_ADJUST_MS_CONFIG = "shaper.capacity.adjust.ms";
    public static final String CAPACITY_ADJUST_MS_DOC = "With shaper.capacity.adaptive: how often, in milliseconds,"
            + " the capacity is decided from the reports that arrived since the previous decision. Writers should"
            + " report at least this often: a decision without a new report changes nothing.";

    /** How long without a report before feedback counts as missing. */
    public static final String CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG = "shaper.capacity.feedback.timeout.ms";
    public static final String CAPACITY_FEEDBACK_TIMEOUT_MS_DOC = "With shaper.capacity.adaptive: how long, in"
            + " milliseconds, after the shaper received the newest report feedback counts as missing. The capacity"
            + " then holds where it is, which is flagged and logged once, until the writers report again. Reports"
            + " whose window ended longer than this before they were received are ignored as late, reports whose"
            + " window ends further than this ahead of the shaper's clock are refused as malformed (the writer's"
            + " clock is ahead), and at start the shaper reads this far back in the feedback topic. At least twice"
            + " shaper.capacity.adjust.ms.";

    /** The warm-up after a start that restored queued records. */
    public static final String CAPACITY_WARMUP_MS_CONFIG = "shaper.capacity.warmup.ms";
    public static final String CAPACITY_WARMUP_MS_DOC = "With shaper.capacity.adaptive: after a start that restored"
            + " queued records, the capacity starts at shaper.capacity.min.rate and its ceiling rises in a straight"
            + " line to shaper.shaping.total.rate over this many milliseconds, so that the backlog does not reach a"
            + " database with cold caches at full speed; the feedback can hold it lower. The ceiling rises with or"
            + " without feedback. 0: no warm-up.";

    /** How the closed loop moves the capacity. */
    public static final String CAPACITY_CONTROLLER_CONFIG = "shaper.capacity.controller";
    public static final String CAPACITY_CONTROLLER_DOC = "With shaper.capacity.adaptive: how the capacity moves. aimd:"
            + " up by a twentieth of shaper.shaping.total.rate per second while healthy, down by 30 % per decision"
            + " while not. gradient: in proportion to the distance between the p99 and the target, down by 12 % to"
            + " 30 % per decision while unhealthy, up by at most 10 % per second while healthy, and never slower than"
            + " aimd.";

    /** Punctuation interval of the release. */
    public static final String SHAPING_TICK_MS_CONFIG = "shaper.shaping.tick.ms";
    public static final String SHAPING_TICK_MS_DOC = "How often, in milliseconds of wall-clock time, queued"
            + " records that have fallen due are released. Smaller ticks release smaller batches more often.";

    /** Cap on what one release may catch up after a stall. */
    public static final String SHAPING_CATCHUP_MAX_MS_CONFIG = "shaper.shaping.catchup.max.ms";
    public static final String SHAPING_CATCHUP_MAX_MS_DOC = "The most time, in milliseconds, that one release"
            + " may cover. Schedules run on a per-task virtual clock that follows the wall clock but advances"
            + " at most this much per release: when the release runs late (a GC pause, a slow commit, a"
            + " restart or a rebalance) the queues resume at their rate, and at most this much backlog leaves"
            + " at once instead of everything that fell due during the stall. Too small a value makes normal"
            + " thread latency slow the rate down; values below the tick count as one tick.";

    /** Per-key rules file. */
    public static final String RULES_FILE_CONFIG = "shaper.rules.file";
    public static final String RULES_FILE_DOC = "Path of a YAML or JSON file of per-key rules (exact, prefix,"
            + " glob or regex key patterns with rate, max.queue, max.delay.ms, priority, weight and admission"
            + " limits: admission.rate and admission.burst, or several admission.limits, and admission.algorithm);"
            + " the first matching rule wins, the shaper.shaping.* and shaper.admission.* defaults apply otherwise."
            + " Empty: no rules.";

    /** Compacted topic of per-key rules that apply while the shaper runs. */
    public static final String RULES_TOPIC_CONFIG = "shaper.rules.topic";
    public static final String RULES_TOPIC_DOC = "Compacted topic of per-key rules that every instance applies while"
            + " it runs, within a second, without a restart or a rebalance. Record key: the rule id (UTF-8); value:"
            + " one rule as JSON, the fields of a rules-file entry plus order (a whole number, lower is matched"
            + " first, ties by id); a null value deletes the rule. The rules file's rules are matched first. An"
            + " invalid record is refused whole, logged and counted. Manage it with java -jar shaper.jar rules."
            + " Empty: no rules topic.";

    /** Whether the whole application enforces its rules or only tries them (shadow). */
    public static final String MODE_CONFIG = "shaper.mode";
    public static final String MODE_DOC = "enforce: each rule's own mode applies (enforce unless the rule says mode:"
            + " shadow). shadow: every rule and the defaults are in shadow, whatever their mode: each decision"
            + " (admission, the key's leaky bucket) is computed, counted in the metrics with mode=\"shadow\" and"
            + " written to shaper.shadow.topic, while the record itself passes to the output topic at once. To try"
            + " limits on live traffic before enforcing them. Input checks (malformed records) still reject.";

    /** The value of {@link #MODE_CONFIG} (and of a rule's {@code mode}) that puts rules in shadow. */
    public static final String MODE_SHADOW = "shadow";
    /** The value of {@link #MODE_CONFIG} (and of a rule's {@code mode}) that enforces rules: the default. */
    public static final String MODE_ENFORCE = "enforce";

    /** Topic of the decisions that rules in shadow would have made. */
    public static final String SHADOW_TOPIC_CONFIG = "shaper.shadow.topic";
    public static final String SHADOW_TOPIC_DOC = "Topic of the decisions that rules in shadow would have made:"
            + " for each record that would have waited or been rejected, one record with its key, no value, and"
            + " the headers shaper.shadow.decision (queue or reject), shaper.shadow.delay.ms (the wait it would"
            + " have had), shaper.reason, shaper.retry.after.ms and shaper.detail (for a rejection), and its source"
            + " topic, partition and offset. Delete policy, not compacted. Empty: the would-be decisions are"
            + " counted in the metrics only.";

    /** How long a topic the shaper writes to may stay missing before the instance stops. */
    public static final String TOPICS_MISSING_STOP_MS_CONFIG = "shaper.topics.missing.stop.ms";
    public static final String TOPICS_MISSING_STOP_MS_DOC = "How long, in milliseconds, the output or the rejected"
            + " topic, or a changelog topic of the shaper's stores, may stay missing (deleted, or no longer visible to"
            + " the shaper) before the instance stops with exit code 4. Meanwhile it is paused (nothing released,"
            + " rejected or taken from the input) and not ready, and resumes if the topic exists again. The queues"
            + " keep their records in their changelogs, so an instance started again once the output or rejected"
            + " topic is back loses none; a changelog deleted takes with it what was queued before, once the"
            + " instance stops.";

    /** In-memory key states kept per instance, all its tasks together. */
    /** Off-heap memory of all RocksDB stores of the instance together. */
    public static final String STATE_ROCKSDB_MEMORY_BYTES_CONFIG = BoundedRocksDbMemory.BYTES_CONFIG;
    public static final String STATE_ROCKSDB_MEMORY_BYTES_DOC = "Bytes of off-heap memory that all RocksDB stores of"
            + " this instance share, whatever its number of partitions (two stores each): one block cache, which"
            + " the stores' memtables (at most half of it) and their index and filter blocks are charged to as"
            + " well. RocksDB's own overheads come on top, so keep some room beyond heap plus this. 0: Kafka"
            + " Streams' defaults, a 50 MB block cache and up to three 16 MB memtables per store, with no bound per"
            + " instance. Ignored when rocksdb.config.setter is set.";
    public static final String STATE_CACHE_MAX_KEYS_CONFIG = "shaper.state.cache.max.keys";
    public static final String STATE_CACHE_MAX_KEYS_DOC = "Per-key states this instance keeps in memory in front"
            + " of RocksDB, all its stream tasks together: a task that adds a state while the instance is at the"
            + " bound drops its own least recently used ones. Larger values save RocksDB reads for many active"
            + " keys. States changed since the last commit cannot be dropped before it is written, so they may take"
            + " the count over the bound by at most the bound again (a task writes its changes ahead of the commit"
            + " once they exceed its share of the bound), and the states of keys that released a record in the last"
            + " second stay too (their window of releases keeps them to rate + 1 a second, and the store keeps no"
            + " window): with more such keys than the bound, the count follows them. Each state takes about 220 to"
            + " 380 bytes of heap with keys of 16 to 36 bytes: the default about 22 to 38 MB, at most twice that"
            + " with changes pending.";

    /** Default admission rate. */
    public static final String ADMISSION_RATE_CONFIG = "shaper.admission.rate";
    public static final String ADMISSION_RATE_DOC = "Default rate, in tokens per second, of the admission token"
            + " bucket of each admission key; a record takes as many tokens as its cost, and one that finds too"
            + " few is rejected with reason RATE_LIMITED and the wait until enough exist. With a window algorithm"
            + " (shaper.admission.algorithm), the most one window of a second admits. 0 means no default"
            + " limit: with no admission.rate or admission.limits in the rules file either, the admission stage is"
            + " off.";

    /** Default admission burst. */
    public static final String ADMISSION_BURST_CONFIG = "shaper.admission.burst";
    public static final String ADMISSION_BURST_DOC = "Default capacity, in tokens, of each admission bucket: the"
            + " most that can be admitted at once. 0 means one second of the rate, at least 1. Token bucket only:"
            + " a window has no burst, so with a window algorithm it must stay 0.";

    /** Default admission algorithm. */
    public static final String ADMISSION_ALGORITHM_CONFIG = "shaper.admission.algorithm";
    public static final String ADMISSION_ALGORITHM_DOC = "How admission counts, for the default limit and every rule"
            + " that sets no admission.algorithm. token-bucket: a bucket of shaper.admission.burst tokens refilled at"
            + " the rate, smooth, bursts up to the burst. fixed-window: at most shaper.admission.rate per window of"
            + " one second aligned to Redis's clock (a rule's admission.limits sets other windows); cheap, but up to"
            + " twice the limit within moments across a window boundary. sliding-window: the fixed window's"
            + " counters with the previous window weighted by how much of it the sliding window still covers; no"
            + " burst at a boundary, exact for evenly spread traffic, at most twice the limit in any window-long"
            + " interval in the worst case. gcra: the generic cell rate algorithm, one arrival time per limit; admits"
            + " what the token bucket admits, from a little less memory in Redis with one limit. Each with its Redis"
            + " script and its local fallback, in strict and batched modes; see docs/admission.md.";

    /** Where the admission key comes from. */
    public static final String ADMISSION_KEY_HEADER_CONFIG = "shaper.admission.key.header";
    public static final String ADMISSION_KEY_HEADER_DOC = "Name of the header whose value is the admission key"
            + " (a tenant or user id, say). Empty: the record key. A record without that header, or with an"
            + " empty one, is rejected with reason INVALID_ADMISSION_KEY.";

    /** Consistency mode of the shared counters. */
    public static final String ADMISSION_MODE_CONFIG = "shaper.admission.mode";
    public static final String ADMISSION_MODE_DOC = "strict: one Redis call per record, exact and shared with any"
            + " service that runs the same script, but limited by Redis round trips. batched: each instance"
            + " admits from a local mirror of each bucket and reconciles with Redis every"
            + " shaper.admission.sync.ms in one pipelined round trip; N instances may together admit at most"
            + " (N - 1) x (burst + rate x sync interval) tokens too many, which is charged back at the next sync.";

    /** Sync interval of the batched mode. */
    public static final String ADMISSION_SYNC_MS_CONFIG = "shaper.admission.sync.ms";
    public static final String ADMISSION_SYNC_MS_DOC = "How often, in milliseconds, the batched mode reconciles"
            + " its local buckets with Redis. Each sync updates in Redis every bucket the instance admitted from"
            + " since the last one, about 4 microseconds of Redis CPU per bucket: 10,000 active keys cost Redis"
            + " about 16 % of a core per instance at 250 ms, 40 % at 100 ms. A longer interval raises the bound on"
            + " over-admission (see shaper.admission.mode) by rate x the difference.";

    /** Redis location: one server or a Redis Cluster. */
    public static final String REDIS_URI_CONFIG = "shaper.redis.uri";
    public static final String REDIS_URI_DOC = "Redis holding the shared admission counters (and, with"
            + " shaper.shaping.total.scope=cluster, the capacity's leases and decision):"
            + " redis://[user:password@]host:port[/db], or rediss://... for TLS. A Redis Cluster:"
            + " redis-cluster://[user:password@]host:port[,host:port...], or rediss-cluster://... for TLS, naming"
            + " one or more of its nodes (the client learns the others and follows failovers; no /db). Empty:"
            + " admission uses local buckets only, each with the rate divided by the number of live shaper"
            + " instances. The password never appears in logs.";

    /** Certificate authorities trusted for rediss:// and rediss-cluster://. */
    public static final String REDIS_TLS_CA_FILE_CONFIG = "shaper.redis.tls.ca.file";
    public static final String REDIS_TLS_CA_FILE_DOC = "For a rediss:// or rediss-cluster:// URI: path of a PEM file"
            + " of the certificate authorities whose certificates the shaper trusts for Redis, in place of the JVM's"
            + " truststore (which -Djavax.net.ssl.trustStore replaces for every TLS connection of the JVM, Kafka's"
            + " included). The server's certificate must also name the host of shaper.redis.uri (on a Redis Cluster,"
            + " each node's certificate the address the node announces). Empty: the JVM's truststore.";

    /** Redis timeout. */
    public static final String REDIS_TIMEOUT_MS_CONFIG = "shaper.redis.timeout.ms";
    public static final String REDIS_TIMEOUT_MS_DOC = "Longest wait, in milliseconds, for any Redis command. A"
            + " Redis that errs or answers slower counts as down: admission switches to local buckets (rate"
            + " divided by the live shaper instances) until Redis answers a ping again. With the total rate leased"
            + " through Redis, at most a quarter of shaper.capacity.lease.ms (a renewal period).";

    /** Redis health-check interval. */
    public static final String REDIS_PING_INTERVAL_MS_CONFIG = "shaper.redis.ping.interval.ms";
    public static final String REDIS_PING_INTERVAL_MS_DOC = "While Redis is down, how often, in milliseconds, one"
            + " background thread pings it; admission returns to Redis at the first answer.";

    /** Port of the operations HTTP server. */
    public static final String HTTP_PORT_CONFIG = "shaper.http.port";
    public static final String HTTP_PORT_DOC = "TCP port of the HTTP server for /metrics (Prometheus),"
            + " /health/live, /health/ready and /buckets/{key}; 0 picks a free port (logged), -1 turns the server"
            + " off. To let /buckets/{key} forward to the instance that hosts a key, set Kafka Streams'"
            + " application.server to this instance's host and this port.";

    private static final ConfigDef CONFIG = new ConfigDef()
            .define(INPUT_TOPIC_CONFIG, Type.STRING, "shaper-input", new ConfigDef.NonEmptyString(),
                    Importance.HIGH, INPUT_TOPIC_DOC)
            .define(OUTPUT_TOPIC_CONFIG, Type.STRING, "shaper-shaped", new ConfigDef.NonEmptyString(),
                    Importance.HIGH, OUTPUT_TOPIC_DOC)
            .define(REJECTED_TOPIC_CONFIG, Type.STRING, "shaper-rejected", new ConfigDef.NonEmptyString(),
                    Importance.HIGH, REJECTED_TOPIC_DOC)
            .define(OUTPUT_RELEASED_HEADER_CONFIG, Type.BOOLEAN, false, Importance.LOW, OUTPUT_RELEASED_HEADER_DOC)
            .define(SHAPING_RATE_CONFIG, Type.DOUBLE, 100.0, new PositiveFinite(), Importance.HIGH,
                    SHAPING_RATE_DOC)
            .define(SHAPING_MAX_QUEUE_CONFIG, Type.INT, 10_000, Range.atLeast(0), Importance.HIGH,
                    SHAPING_MAX_QUEUE_DOC)
            .define(SHAPING_MAX_TASK_QUEUE_CONFIG, Type.INT, 10_000_000, Range.atLeast(1), Importance.MEDIUM,
                    SHAPING_MAX_TASK_QUEUE_DOC)
            .define(SHAPING_MAX_DELAY_MS_CONFIG, Type.LONG, 60_000L, Range.between(0, 365L * 24 * 3600 * 1000),
                    Importance.HIGH, SHAPING_MAX_DELAY_MS_DOC)
            .define(SHAPING_MAX_DELAY_FROM_CONFIG, Type.STRING, MAX_DELAY_FROM_TIMESTAMP,
                    ConfigDef.CaseInsensitiveValidString.in(MAX_DELAY_FROM_TIMESTAMP, MAX_DELAY_FROM_ARRIVAL),
                    Importance.MEDIUM, SHAPING_MAX_DELAY_FROM_DOC)
            .define(SHAPING_TOTAL_RATE_CONFIG, Type.DOUBLE, 0.0, new ZeroOrPositiveFinite(), Importance.MEDIUM,
                    SHAPING_TOTAL_RATE_DOC)
            .define(SHAPING_TOTAL_SCOPE_CONFIG, Type.STRING, TOTAL_SCOPE_CLUSTER,
                    ConfigDef.ValidString.in(TOTAL_SCOPE_CLUSTER, TOTAL_SCOPE_PARTITION), Importance.MEDIUM,
                    SHAPING_TOTAL_SCOPE_DOC)
            .define(CAPACITY_LEASE_MS_CONFIG, Type.LONG, 1_000L, Range.between(100, 60_000), Importance.LOW,
                    CAPACITY_LEASE_MS_DOC)
            .define(CAPACITY_RENEWALS_PER_SECOND_CONFIG, Type.INT, 300, Range.between(1, 1_000_000), Importance.LOW,
                    CAPACITY_RENEWALS_PER_SECOND_DOC)
            .define(CAPACITY_FEEDBACK_TOPIC_CONFIG, Type.STRING, "", Importance.MEDIUM, CAPACITY_FEEDBACK_TOPIC_DOC)
            .define(CAPACITY_ADAPTIVE_CONFIG, Type.BOOLEAN, false, Importance.MEDIUM, CAPACITY_ADAPTIVE_DOC)
            .define(CAPACITY_MIN_RATE_CONFIG, Type.DOUBLE, 0.0, new ZeroOrPositiveFinite(), Importance.MEDIUM,
                    CAPACITY_MIN_RATE_DOC)
            .define(CAPACITY_TARGET_LATENCY_MS_CONFIG, Type.DOUBLE, 100.0, new PositiveFinite(), Importance.MEDIUM,
                    CAPACITY_TARGET_LATENCY_MS_DOC)
            .define(CAPACITY_MAX_ERROR_RATIO_CONFIG, Type.DOUBLE, 0.01, Range.between(0.0, 1.0), Importance.MEDIUM,
                    CAPACITY_MAX_ERROR_RATIO_DOC)
            .define(CAPACITY_ADJUST_MS_CONFIG, Type.LONG, 1_000L, Range.between(100, 600_000), Importance.LOW,
                    CAPACITY_ADJUST_MS_DOC)
            .define(CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG, Type.LONG, 5_000L, Range.between(200, 3_600_000),
                    Importance.LOW, CAPACITY_FEEDBACK_TIMEOUT_MS_DOC)
            .define(CAPACITY_WARMUP_MS_CONFIG, Type.LONG, 30_000L, Range.between(0, 3_600_000), Importance.LOW,
                    CAPACITY_WARMUP_MS_DOC)
            .define(CAPACITY_CONTROLLER_CONFIG, Type.STRING, "aimd",
                    ConfigDef.CaseInsensitiveValidString.in("aimd", "gradient"), Importance.LOW,
                    CAPACITY_CONTROLLER_DOC)
            .define(SHAPING_TICK_MS_CONFIG, Type.LONG, 100L, Range.between(1, 60_000), Importance.MEDIUM,
                    SHAPING_TICK_MS_DOC)
            .define(SHAPING_CATCHUP_MAX_MS_CONFIG, Type.LONG, 200L, Range.between(1, 600_000), Importance.LOW,
                    SHAPING_CATCHUP_MAX_MS_DOC)
            .define(RULES_FILE_CONFIG, Type.STRING, "", Importance.MEDIUM, RULES_FILE_DOC)
            .define(RULES_TOPIC_CONFIG, Type.STRING, "", Importance.MEDIUM, RULES_TOPIC_DOC)
            .define(MODE_CONFIG, Type.STRING, MODE_ENFORCE,
                    ConfigDef.CaseInsensitiveValidString.in(MODE_ENFORCE, MODE_SHADOW), Importance.MEDIUM, MODE_DOC)
            .define(SHADOW_TOPIC_CONFIG, Type.STRING, "", Importance.MEDIUM, SHADOW_TOPIC_DOC)
            .define(TOPICS_MISSING_STOP_MS_CONFIG, Type.LONG, 600_000L, Range.atLeast(1_000), Importance.LOW,
                    TOPICS_MISSING_STOP_MS_DOC)
            .define(STATE_CACHE_MAX_KEYS_CONFIG, Type.INT, 100_000, Range.atLeast(1), Importance.LOW,
                    STATE_CACHE_MAX_KEYS_DOC)
            .define(STATE_ROCKSDB_MEMORY_BYTES_CONFIG, Type.LONG, 256L * 1024 * 1024, Range.atLeast(0),
                    Importance.MEDIUM, STATE_ROCKSDB_MEMORY_BYTES_DOC)
            .define(ADMISSION_RATE_CONFIG, Type.DOUBLE, 0.0, new ZeroOrPositiveFinite(), Importance.HIGH,
                    ADMISSION_RATE_DOC)
            .define(ADMISSION_BURST_CONFIG, Type.DOUBLE, 0.0, new ZeroOrAtLeastOne(), Importance.MEDIUM,
                    ADMISSION_BURST_DOC)
            .define(ADMISSION_ALGORITHM_CONFIG, Type.STRING, AdmissionAlgorithm.TOKEN_BUCKET.configName(),
                    ConfigDef.CaseInsensitiveValidString.in(AdmissionAlgorithm.all().stream()
                            .map(AdmissionAlgorithm::configName).toArray(String[]::new)), Importance.MEDIUM,
                    ADMISSION_ALGORITHM_DOC)
            .define(ADMISSION_KEY_HEADER_CONFIG, Type.STRING, "", Importance.MEDIUM, ADMISSION_KEY_HEADER_DOC)
            .define(ADMISSION_MODE_CONFIG, Type.STRING, "batched",
                    ConfigDef.CaseInsensitiveValidString.in("strict", "batched"), Importance.HIGH,
                    ADMISSION_MODE_DOC)
            .define(ADMISSION_SYNC_MS_CONFIG, Type.LONG, 250L, Range.between(1, 60_000), Importance.MEDIUM,
                    ADMISSION_SYNC_MS_DOC)
            .define(REDIS_URI_CONFIG, Type.PASSWORD, "", new RedisUriValidator(), Importance.HIGH, REDIS_URI_DOC)
            .define(REDIS_TLS_CA_FILE_CONFIG, Type.STRING, "", new ReadableFileOrEmpty(), Importance.LOW,
                    REDIS_TLS_CA_FILE_DOC)
            .define(REDIS_TIMEOUT_MS_CONFIG, Type.LONG, 50L, Range.between(1, 60_000), Importance.MEDIUM,
                    REDIS_TIMEOUT_MS_DOC)
            .define(REDIS_PING_INTERVAL_MS_CONFIG, Type.LONG, 1_000L, Range.between(10, 600_000), Importance.LOW,
                    REDIS_PING_INTERVAL_MS_DOC)
            .define(HTTP_PORT_CONFIG, Type.INT, 8080, Range.between(-1, 65_535), Importance.MEDIUM, HTTP_PORT_DOC);

    private final Map<String, Object> streamsSettings;

    public ShaperConfig(Map<?, ?> settings) {
        super(CONFIG, shaperKeysOnly(settings), false);
        this.streamsSettings = streamsKeysOnly(settings);
        refuseLoop(OUTPUT_TOPIC_CONFIG, outputTopic());
        refuseLoop(REJECTED_TOPIC_CONFIG, rejectedTopic());
        checkAdaptiveCapacity();
        checkLeaseTimeout();
        checkAdmissionAlgorithm();
        checkRulesTopic();
        checkShadowTopic();
    }

    /**
     * With the capacity leased through Redis, a renewal's answer must come within a renewal period: a later one could
     * hand the instance a part that the lease table has already given up, and the capacity could be exceeded.
     */
    private void checkLeaseTimeout() {
        if (!(totalRate() > 0) || !totalRatePooled() || redisUri() == null) {
            return;
        }
        long timeoutMs = getLong(REDIS_TIMEOUT_MS_CONFIG);
        long leaseMs = getLong(CAPACITY_LEASE_MS_CONFIG);
        if (timeoutMs > leaseMs / 4) {
            throw new ConfigException(REDIS_TIMEOUT_MS_CONFIG, timeoutMs, "expected at most a quarter of "
                    + CAPACITY_LEASE_MS_CONFIG + " (" + leaseMs + " ms, so at most " + leaseMs / 4 + " ms): a lease"
                    + " renewal answered later than its renewal period could leave this instance a part of "
                    + SHAPING_TOTAL_RATE_CONFIG + " that the others already share; raise " + CAPACITY_LEASE_MS_CONFIG
                    + " or lower " + REDIS_TIMEOUT_MS_CONFIG);
        }
    }

    /** The shadow topic holds decisions, not records: none of the shaper's other topics. */
    private void checkShadowTopic() {
        String topic = shadowTopic();
        if (topic != null && (topic.equals(inputTopic()) || topic.equals(outputTopic())
                || topic.equals(rejectedTopic()) || topic.equals(getString(CAPACITY_FEEDBACK_TOPIC_CONFIG).trim())
                || topic.equals(rulesTopic()))) {
            throw new ConfigException(SHADOW_TOPIC_CONFIG, topic, "expected a topic of its own, not the input,"
                    + " output, rejected, feedback or rules topic");
        }
    }

    /** The rules topic holds rules, not records: none of the shaper's other topics. */
    private void checkRulesTopic() {
        String topic = rulesTopic();
        if (topic != null && (topic.equals(inputTopic()) || topic.equals(outputTopic())
                || topic.equals(rejectedTopic()) || topic.equals(getString(CAPACITY_FEEDBACK_TOPIC_CONFIG).trim()))) {
            throw new ConfigException(RULES_TOPIC_CONFIG, topic, "expected a compacted topic of its own, not the"
                    + " input, output, rejected or feedback topic");
        }
    }

    /** A window has no burst, and admits whole units per window: a burst or a rate below 1 cannot be meant. */
    private void checkAdmissionAlgorithm() {
        AdmissionAlgorithm algorithm = admissionAlgorithm();
        if (algorithm.hasBurst()) {
            return;
        }
        double burst = getDouble(ADMISSION_BURST_CONFIG);
        if (burst > 0) {
            throw new ConfigException(ADMISSION_BURST_CONFIG, burst, "expected 0 with " + ADMISSION_ALGORITHM_CONFIG
                    + "=" + algorithm + ": a window admits at most " + ADMISSION_RATE_CONFIG + " per window and has no"
                    + " burst");
        }
        double rate = getDouble(ADMISSION_RATE_CONFIG);
        if (rate > 0 && rate < 1) {
            throw new ConfigException(ADMISSION_RATE_CONFIG, rate, "expected 0 or at least 1 with "
                    + ADMISSION_ALGORITHM_CONFIG + "=" + algorithm + ": the most one window of a second admits");
        }
    }

    /** The closed loop's settings must fit together and with the total rate, whether or not the loop is on. */
    private void checkAdaptiveCapacity() {
        double min = getDouble(CAPACITY_MIN_RATE_CONFIG);
        if (totalRate() > 0 && min > totalRate()) {
            throw new ConfigException(CAPACITY_MIN_RATE_CONFIG, min, "expected at most " + SHAPING_TOTAL_RATE_CONFIG
                    + " (" + totalRate() + "): the lowest capacity cannot be above the highest");
        }
        String feedbackTopic = getString(CAPACITY_FEEDBACK_TOPIC_CONFIG).trim();
        if (!feedbackTopic.isEmpty() && (feedbackTopic.equals(inputTopic()) || feedbackTopic.equals(outputTopic())
                || feedbackTopic.equals(rejectedTopic()))) {
            throw new ConfigException(CAPACITY_FEEDBACK_TOPIC_CONFIG, feedbackTopic, "expected a topic of its own,"
                    + " not the input, output or rejected topic: the writers' reports are not records to shape");
        }
        if (!getBoolean(CAPACITY_ADAPTIVE_CONFIG)) {
            return;
        }
        if (feedbackTopic.isEmpty()) {
            throw new ConfigException(CAPACITY_ADAPTIVE_CONFIG, true, "needs " + CAPACITY_FEEDBACK_TOPIC_CONFIG
                    + ": without the writers' feedback there is nothing to adapt to");
        }
        if (totalRate() <= 0) {
            throw new ConfigException(CAPACITY_ADAPTIVE_CONFIG, true, "needs " + SHAPING_TOTAL_RATE_CONFIG
                    + " > 0: the highest capacity the loop may reach");
        }
        if (!totalRatePooled()) {
            // Fixed shares are set once per task; following C would have every task's tick read a moving rate.
            throw new ConfigException(CAPACITY_ADAPTIVE_CONFIG, true, "needs " + SHAPING_TOTAL_SCOPE_CONFIG + "="
                    + TOTAL_SCOPE_CLUSTER + ", not " + getString(SHAPING_TOTAL_SCOPE_CONFIG) + ": the closed loop moves"
                    + " the application's capacity, and scope " + TOTAL_SCOPE_PARTITION + " fixes each partition's"
                    + " share at its start (without " + REDIS_URI_CONFIG + ", scope " + TOTAL_SCOPE_CLUSTER + " also gives"
                    + " each partition total / partitions, pooled within an instance)");
        }
        long adjustMs = getLong(CAPACITY_ADJUST_MS_CONFIG);
        long timeoutMs = getLong(CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG);
        if (timeoutMs < 2 * adjustMs) {
            // Shorter, and a report that arrives just after a decision would be late by the next one.
            throw new ConfigException(CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG, timeoutMs, "expected at least twice "
                    + CAPACITY_ADJUST_MS_CONFIG + " (" + adjustMs + " ms)");
        }
    }

    /** A shaped or rejected record written back to the input would be read and shaped again, forever. */
    private void refuseLoop(String key, String topic) {
        if (topic.equals(inputTopic())) {
            throw new ConfigException(key, topic, "expected a topic other than the input topic ("
                    + INPUT_TOPIC_CONFIG + "): the shaper would read its own output again");
        }
    }

    /**
     * The {@code max.request.size} of the shaper's producer, as Kafka Streams hands it over (plain or under
     * {@code producer.}); it bounds every record the shaper writes, shaped, rejected or stored.
     */
    public int producerMaxRequestSize() {
        Object value = producerSetting(ProducerConfig.MAX_REQUEST_SIZE_CONFIG);
        return value == null ? 1024 * 1024 // Kafka's default
                : (Integer) ConfigDef.parseType(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, value, Type.INT);
    }

    /** The {@code compression.type} of the shaper's producer. */
    public String producerCompressionType() {
        Object value = producerSetting(ProducerConfig.COMPRESSION_TYPE_CONFIG);
        return value == null ? "none" : String.valueOf(value).trim().toLowerCase(java.util.Locale.ROOT);
    }

    /** A producer setting as Kafka Streams resolves it: the {@code producer.} form wins over the plain one. */
    private Object producerSetting(String key) {
        Object prefixed = streamsSettings.get(StreamsConfig.producerPrefix(key));
        return prefixed != null ? prefixed : streamsSettings.get(key);
    }

    /** The definition of every shaper key, for documentation generators. */
    public static ConfigDef configDef() {
        return new ConfigDef(CONFIG);
    }

    /**
     * The Kafka Streams settings: every key not under {@code shaper.}, with the shaper's defaults added. The
     * {@code shaper.} keys are included too, so that the shaper's exception handlers, which Kafka Streams
     * configures from these properties, see them.
     */
    public Properties streamsProperties() {
        Properties props = new Properties();
        // Why each default, with the measurements behind it: docs/decisions/0001-kafka-streams-defaults.md.
        props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
        // An idle stream thread blocks in poll() this long, which delays the release ticks by as much: half the finest
        // tick the rules may ask for, between 1 and 10 ms.
        props.put(StreamsConfig.POLL_MS_CONFIG, Long.toString(pollMs()));
        // Each task reads one input partition: there is nothing to wait for.
        props.put(StreamsConfig.MAX_TASK_IDLE_MS_CONFIG, Long.toString(StreamsConfig.MAX_TASK_IDLE_MS_DISABLED));
        // A linger keeps requests full; under exactly-once nobody sees a record before the commit anyway, under
        // at-least-once a linger would shift a batch's first record more than its last.
        boolean exactlyOnce = StreamsConfig.EXACTLY_ONCE_V2.equals(
                streamsSettings.getOrDefault(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2));
        putProducerDefault(props, ProducerConfig.LINGER_MS_CONFIG, exactlyOnce ? "10" : "0");
        // Right after a commit, the broker answers a send to a partition of the finished transaction with
        // CONCURRENT_TRANSACTIONS until its markers are written; the producer's 100 ms default backoff then holds the
        // next commit, and with it the release ticks, for that long.
        putProducerDefault(props, ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "10");
        // Queued records reach the changelog at the commit in one burst, which the commit waits for.
        putProducerDefault(props, ProducerConfig.BATCH_SIZE_CONFIG, Integer.toString(128 * 1024));
        putProducerDefault(props, ProducerConfig.BUFFER_MEMORY_CONFIG, Long.toString(64L * 1024 * 1024));
        // A task that starts restoring waits behind the restore consumer's fetch in flight, while Kafka Streams 4.3
        // spins until every task is restored.
        putRestoreConsumerDefault(props, ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "50");
        // How long a lost instance's queues stand still before its tasks move.
        putMainConsumerDefault(props, ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        // One bounded block cache for all the instance's stores, however many partitions it runs.
        if (getLong(STATE_ROCKSDB_MEMORY_BYTES_CONFIG) > 0) {
            props.put(StreamsConfig.ROCKSDB_CONFIG_SETTER_CLASS_CONFIG, BoundedRocksDbMemory.class.getName());
            props.put(STATE_ROCKSDB_MEMORY_BYTES_CONFIG, Long.toString(getLong(STATE_ROCKSDB_MEMORY_BYTES_CONFIG)));
        }
        // The shaper has no global stores; this only opts in to Kafka 5.0's default and silences its warning.
        String globalHandler = StreamsConfig.PROCESSING_EXCEPTION_HANDLER_GLOBAL_ENABLED_CONFIG;
        props.put(globalHandler, "true");
        props.putAll(streamsSettings);
        originals().forEach(props::put);
        // The main consumer's partition assignor reads its own copy of the settings from the consumer's, without
        // this one, and would warn that it is off
        props.putIfAbsent(StreamsConfig.mainConsumerPrefix(globalHandler), props.getProperty(globalHandler));
        return props;
    }

    /**
     * The default {@code poll.ms}: half the release tick of the default rule's rate (see {@link ReleasePace#tickMs}),
     * at least 1 and at most 10 ms, so that an idle stream thread wakes up for each tick. The start sets it again for
     * the fastest of the rules it reads, the rules file's and the topic's ({@link #defaultPollMs(double)}).
     */
    private long pollMs() {
        return pollMsFor(defaultShapingRule().ratePerSecond());
    }

    private long pollMsFor(double fastestRate) {
        return Math.max(1, Math.min(10, ReleasePace.tickMs(fastestRate, tickMs()) / 2));
    }

    /**
     * The default {@code poll.ms} for rules whose fastest rate is {@code fastestRate}, or null when the settings set
     * {@code poll.ms} themselves: the start calls it once it has read the rules file, and again once it has read the
     * rules topic. (A rule the topic adds after the start does not change it.)
     */
    public Long defaultPollMs(double fastestRate) {
        return streamsSettings.containsKey(StreamsConfig.POLL_MS_CONFIG) ? null : pollMsFor(fastestRate);
    }

    /**
     * Sets a producer default of the shaper under {@code producer.}, unless the user set the key, prefixed or
     * not. Kafka Streams lets a {@code producer.} key win over the same key without the prefix, so a prefixed
     * default would silently override a user's plain {@code linger.ms}; a user's prefixed key overrides it anyway.
     */
    private void putProducerDefault(Properties props, String key, String value) {
        putClientDefault(props, StreamsConfig.producerPrefix(key), value, key);
    }

    /**
     * Sets a restore-consumer default of the shaper under {@code restore.consumer.}, unless the user set the key
     * for it in any form Kafka Streams hands it: plain, under {@code consumer.} (all consumers) or under
     * {@code restore.consumer.} (which overrides the default anyway).
     */
    private void putRestoreConsumerDefault(Properties props, String key, String value) {
        putClientDefault(props, StreamsConfig.restoreConsumerPrefix(key), value, key, StreamsConfig.consumerPrefix(key));
    }

    /**
     * Sets a default of the group member (the main consumer) under {@code main.consumer.}, unless the user set the
     * key plain, under {@code consumer.} or under {@code main.consumer.}.
     */
    private void putMainConsumerDefault(Properties props, String key, String value) {
        putClientDefault(props, StreamsConfig.mainConsumerPrefix(key), value, key, StreamsConfig.consumerPrefix(key));
    }

    /**
     * Whether the instance is a static member of its group ({@code group.instance.id} set, in any form that
     * reaches the main consumer): the group then keeps its tasks for it across a restart within the session
     * timeout, without a rebalance, so a clean stop must not leave the group.
     */
    public boolean staticGroupMember() {
        String key = ConsumerConfig.GROUP_INSTANCE_ID_CONFIG;
        for (String form : new String[] {key, StreamsConfig.consumerPrefix(key), StreamsConfig.mainConsumerPrefix(key)}) {
            Object value = streamsSettings.get(form);
            if (value != null && !String.valueOf(value).isBlank()) {
                return true;
            }
        }
        return false;
    }

    /**
     * Sets {@code prefixedKey} to the shaper's default unless the user set one of {@code userForms}, the other keys
     * that reach the same client setting; the user's own {@code prefixedKey} replaces the default anyway.
     */
    private void putClientDefault(Properties props, String prefixedKey, String value, String... userForms) {
        for (String form : userForms) {
            if (streamsSettings.containsKey(form)) {
                return;
            }
        }
        props.put(prefixedKey, value);
    }

    /** The default leaky-bucket rule, from the {@code shaper.shaping.*} keys. */
    public ShapingRule defaultShapingRule() {
        return new ShapingRule(getDouble(SHAPING_RATE_CONFIG), getInt(SHAPING_MAX_QUEUE_CONFIG),
                getLong(SHAPING_MAX_DELAY_MS_CONFIG));
    }

    /** Whether a record's wait starts at its timestamp (else at its arrival): shaper.shaping.max.delay.from. */
    public boolean maxDelayFromTimestamp() {
        return MAX_DELAY_FROM_TIMESTAMP.equalsIgnoreCase(getString(SHAPING_MAX_DELAY_FROM_CONFIG));
    }

    public String inputTopic() {
        return getString(INPUT_TOPIC_CONFIG);
    }

    public String outputTopic() {
        return getString(OUTPUT_TOPIC_CONFIG);
    }

    public String rejectedTopic() {
        return getString(REJECTED_TOPIC_CONFIG);
    }

    /** Whether shaped records carry {@code shaper.released.ms}. */
    public boolean releasedHeader() {
        return getBoolean(OUTPUT_RELEASED_HEADER_CONFIG);
    }

    public double totalRate() {
        return getDouble(SHAPING_TOTAL_RATE_CONFIG);
    }

    /** The most records one task may have queued, all its keys together. */
    public int maxTaskQueue() {
        return getInt(SHAPING_MAX_TASK_QUEUE_CONFIG);
    }

    /** Whether the partitions an instance runs share their parts of the total rate by demand. */
    public boolean totalRatePooled() {
        return TOTAL_SCOPE_CLUSTER.equals(getString(SHAPING_TOTAL_SCOPE_CONFIG));
    }

    public Duration capacityLease() {
        return Duration.ofMillis(getLong(CAPACITY_LEASE_MS_CONFIG));
    }

    /** The most lease renewals per second the application's instances make together. */
    public int capacityRenewalsPerSecond() {
        return getInt(CAPACITY_RENEWALS_PER_SECOND_CONFIG);
    }

    /** The topic of the writers' feedback, or null for none. */
    public String feedbackTopic() {
        String topic = getString(CAPACITY_FEEDBACK_TOPIC_CONFIG).trim();
        return topic.isEmpty() ? null : topic;
    }

    /** Whether the capacity follows the writers' feedback. */
    public boolean capacityAdaptive() {
        return getBoolean(CAPACITY_ADAPTIVE_CONFIG);
    }

    /** The lowest capacity of the closed loop: the setting, or a tenth of the total rate where it is 0. */
    public double capacityMinRate() {
        double min = getDouble(CAPACITY_MIN_RATE_CONFIG);
        return min > 0 ? min : totalRate() / 10;
    }

    /** The closed loop's settings, or null when {@code shaper.capacity.adaptive} is false. */
    public AdaptiveSettings adaptiveCapacity() {
        if (!capacityAdaptive()) {
            return null;
        }
        return new AdaptiveSettings(new CapacityBounds(capacityMinRate(), totalRate()),
                getDouble(CAPACITY_TARGET_LATENCY_MS_CONFIG), getDouble(CAPACITY_MAX_ERROR_RATIO_CONFIG),
                getLong(CAPACITY_ADJUST_MS_CONFIG), getLong(CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG),
                getLong(CAPACITY_WARMUP_MS_CONFIG), ControllerKind.of(getString(CAPACITY_CONTROLLER_CONFIG)));
    }

    public long tickMs() {
        return getLong(SHAPING_TICK_MS_CONFIG);
    }

    /** The most virtual time one release may cover: the setting, and never less than one tick. */
    public long catchUpMaxMs() {
        return Math.max(getLong(SHAPING_CATCHUP_MAX_MS_CONFIG), tickMs());
    }

    public String rulesFile() {
        return getString(RULES_FILE_CONFIG);
    }

    /** The rules topic, or null when there is none. */
    public String rulesTopic() {
        String topic = getString(RULES_TOPIC_CONFIG);
        return topic.isBlank() ? null : topic.strip();
    }

    /** True under {@code shaper.mode=shadow}: every rule is in shadow. */
    public boolean allInShadow() {
        return MODE_SHADOW.equalsIgnoreCase(getString(MODE_CONFIG));
    }

    /** How long the output or rejected topic may stay missing before the instance stops. */
    public Duration topicsMissingStop() {
        return Duration.ofMillis(getLong(TOPICS_MISSING_STOP_MS_CONFIG));
    }

    /** The shadow topic, or null when there is none (the would-be decisions are counted only). */
    public String shadowTopic() {
        String topic = getString(SHADOW_TOPIC_CONFIG);
        return topic.isBlank() ? null : topic.strip();
    }

    public int stateCacheMaxKeys() {
        return getInt(STATE_CACHE_MAX_KEYS_CONFIG);
    }

    /** The default admission bucket, or null when {@code shaper.admission.rate} is 0. */
    public AdmissionRule defaultAdmissionRule() {
        double rate = getDouble(ADMISSION_RATE_CONFIG);
        if (rate <= 0) {
            return null;
        }
        double burst = getDouble(ADMISSION_BURST_CONFIG);
        return new AdmissionRule(rate, burst > 0 ? burst : AdmissionRule.defaultBurst(rate));
    }

    /** The algorithm of the default admission and of rules that name none ({@code shaper.admission.algorithm}). */
    public AdmissionAlgorithm admissionAlgorithm() {
        return AdmissionAlgorithm.of(getString(ADMISSION_ALGORITHM_CONFIG));
    }

    /**
     * The default admission: one limit of {@code shaper.admission.rate} per second under {@code
     * shaper.admission.algorithm} (with its burst for a token bucket), or null when the rate is 0.
     */
    public AdmissionPolicy defaultAdmission() {
        AdmissionRule rule = defaultAdmissionRule();
        if (rule == null) {
            return null;
        }
        AdmissionAlgorithm algorithm = admissionAlgorithm();
        return algorithm.hasBurst() ? new AdmissionPolicy(algorithm, List.of(new AdmissionLimit(rule.ratePerSecond(),
                1000, rule.burst()))) : AdmissionPolicy.of(algorithm, rule.ratePerSecond(), 1000);
    }

    /** The header that holds the admission key, or null to use the record key. */
    public String admissionKeyHeader() {
        String header = getString(ADMISSION_KEY_HEADER_CONFIG);
        return header.isBlank() ? null : header;
    }

    public AdmissionMode admissionMode() {
        return AdmissionMode.valueOf(getString(ADMISSION_MODE_CONFIG).toUpperCase(java.util.Locale.ROOT));
    }

    public Duration admissionSyncInterval() {
        return Duration.ofMillis(getLong(ADMISSION_SYNC_MS_CONFIG));
    }

    /** The Redis URI, or null for none. Keep it out of logs: it may hold a password. */
    public String redisUri() {
        String uri = getPassword(REDIS_URI_CONFIG).value();
        return uri.isBlank() ? null : uri.trim();
    }

    /** The PEM file of the CAs to trust for {@code rediss://}, or null for the JVM's truststore. */
    public java.nio.file.Path redisTlsCaFile() {
        String file = getString(REDIS_TLS_CA_FILE_CONFIG);
        return file.isBlank() ? null : java.nio.file.Path.of(file.trim());
    }

    public Duration redisTimeout() {
        return Duration.ofMillis(getLong(REDIS_TIMEOUT_MS_CONFIG));
    }

    public Duration redisPingInterval() {
        return Duration.ofMillis(getLong(REDIS_PING_INTERVAL_MS_CONFIG));
    }

    /** The HTTP server's port: 0 for any free port, -1 for no server. */
    public int httpPort() {
        return getInt(HTTP_PORT_CONFIG);
    }

    private static Map<String, Object> shaperKeysOnly(Map<?, ?> settings) {
        Map<String, Object> shaper = new HashMap<>();
        TreeSet<String> unknown = new TreeSet<>();
        for (Map.Entry<?, ?> e : settings.entrySet()) {
            String key = String.valueOf(e.getKey());
            if (!key.startsWith(PREFIX)) {
                continue;
            }
            if (!CONFIG.names().contains(key)) {
                unknown.add(key);
            }
            shaper.put(key, e.getValue());
        }
        if (!unknown.isEmpty()) {
            String first = unknown.first();
            throw new ConfigException(first, shaper.get(first), "no such shaper setting (unknown keys: " + unknown
                    + "); the shaper's settings are " + new TreeSet<>(CONFIG.names()));
        }
        return shaper;
    }

    private static Map<String, Object> streamsKeysOnly(Map<?, ?> settings) {
        Map<String, Object> streams = new HashMap<>();
        settings.forEach((k, v) -> {
            String key = String.valueOf(k);
            if (!key.startsWith(PREFIX)) {
                streams.put(key, v);
            }
        });
        return streams;
    }

    /** Accepts 0 (meaning "derive it") or a finite number of at least 1. */
    static final class ZeroOrAtLeastOne implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!(value instanceof Number n) || !(n.doubleValue() == 0 || n.doubleValue() >= 1)
                    || Double.isInfinite(n.doubleValue())) {
                throw new ConfigException(name, value, "expected 0 or a finite number >= 1");
            }
        }

        @Override
        public String toString() {
            return "0 or [1, ...)";
        }
    }

    /**
     * Accepts an empty string, a redis:// or rediss:// URI, or a Redis Cluster's redis-cluster:// or
     * rediss-cluster:// one ({@link RedisLocation}); never echoes the value (it may hold a password).
     */
    static final class RedisUriValidator implements ConfigDef.Validator {

        @Override
        public void ensureValid(String name, Object value) {
            String uri = value instanceof org.apache.kafka.common.config.types.Password p ? p.value()
                    : String.valueOf(value);
            if (uri.isBlank()) {
                return;
            }
            try {
                RedisLocation.parse(uri);
            } catch (IllegalArgumentException e) {
                throw new ConfigException(name, "[hidden]", e.getMessage() + "; or empty for local admission only");
            }
        }

        @Override
        public String toString() {
            return "empty, redis://..., rediss://..., redis-cluster://... or rediss-cluster://...";
        }
    }

    /** Accepts an empty string or the path of a readable file: a missing file fails at start, not at the first use. */
    static final class ReadableFileOrEmpty implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            String file = value == null ? "" : value.toString().trim();
            if (!file.isEmpty() && !java.nio.file.Files.isReadable(java.nio.file.Path.of(file))) {
                throw new ConfigException(name, value, "expected the path of a readable file, or empty");
            }
        }

        @Override
        public String toString() {
            return "empty or a readable file";
        }
    }

    /**
     * Accepts 0 (meaning "none") or a finite number greater than zero: NaN and infinity pass a range check, and
     * would silently mean "no limit".
     */
    static final class ZeroOrPositiveFinite implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!(value instanceof Number n) || !(n.doubleValue() >= 0) || Double.isInfinite(n.doubleValue())) {
                throw new ConfigException(name, value, "expected 0 (none) or a finite number > 0");
            }
        }

        @Override
        public String toString() {
            return "0 or (0, ...), finite";
        }
    }

    /** Accepts finite numbers greater than zero. */
    static final class PositiveFinite implements ConfigDef.Validator {
        @Override
        public void ensureValid(String name, Object value) {
            if (!(value instanceof Number n) || !(n.doubleValue() > 0) || Double.isInfinite(n.doubleValue())) {
                throw new ConfigException(name, value, "expected a finite number > 0");
            }
        }

        @Override
        public String toString() {
            return "(0, ...)";
        }
    }
}
