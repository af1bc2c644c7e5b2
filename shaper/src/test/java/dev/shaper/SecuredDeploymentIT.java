package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.capacity.CapacityLeaseScript;
import dev.shaper.internals.capacity.adaptive.CapacityDecisionScript;
import dev.shaper.testsupport.Await;
import dev.shaper.testsupport.ChildShaperSettings;
import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.CommittedRecords;
import dev.shaper.testsupport.DocumentedAcls;
import dev.shaper.testsupport.FreePort;
import dev.shaper.testsupport.Http;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.PrometheusText;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.RedisServer;
import dev.shaper.testsupport.ShaperProcess;
import dev.shaper.testsupport.TestCertificates;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaper deployed as {@code docs/security.md} tells an operator to: Kafka over SASL_SSL with SCRAM-SHA-512 (a
 * CA made by the test) and an authorizer that allows the shaper's user exactly the ACLs the page lists, Redis over
 * TLS only with an ACL user allowed exactly the page's commands, and secrets in its settings (a JAAS password and
 * a Redis password from environment variables, as a pod gets them from a Secret, a trust store password from the
 * settings file). The shaper runs from its jar as a child process, logging JSON
 * ({@code LOG_FORMAT=json}); records flow through Redis admission, the capacity lease and the closed loop; then
 * every HTTP endpoint is asked, the shaper is stopped, and none of the secrets may appear in its output or in any
 * answer.
 */
@Order(2) // among the slowest classes: started first in the parallel run
class SecuredDeploymentIT {

    private static final String APP_ID = "secured-shaper";
    private static final String IN = "secured-in";
    private static final String OUT = "secured-out";
    private static final String REJECTED = "secured-rejected";
    private static final String FEEDBACK = "secured-feedback";
    private static final String RULES = "secured-rules";
    private static final String SHADOW = "secured-shadow";
    /** A key under a rule in shadow, from the rules topic: 1/s, so that its records report would-be waits. */
    private static final String SHADOW_KEY = "tried-0";
    private static final int SHADOW_RECORDS = 5;
    private static final String KAFKA_USER = "shaper";
    private static final String REDIS_USER = "shaper";
    /** The secrets: letters, digits and dashes only, so that JSON escaping could not hide one from the search. */
    private static final String KAFKA_PASSWORD = "kafka-Pw-7c41f0e2";
    private static final String REDIS_PASSWORD = "redis-Pw-93ab5d17";
    private static final String STORE_PASSWORD = "store-Pw-0d8e6b3a";
    private static final List<String> SECRETS = List.of(KAFKA_PASSWORD, REDIS_PASSWORD, STORE_PASSWORD);
    private static final int KEYS = 10;
    private static final int PER_KEY = 20;
    private static final Path LOG = Path.of("target", "secured-deployment", "shaper.log");
    private static final ObjectMapper JSON = new ObjectMapper();

    @TempDir
    static Path dir;

    private static KafkaBroker broker;
    private static RedisServer redis;
    private static ShaperProcess shaper;
    private static int httpPort;
    private static List<AclBinding> documentedAcls;
    /** Every HTTP answer, status line, headers and body, as the test received it. */
    private static final Map<String, String> answers = new LinkedHashMap<>();
    private static List<CollectedRecord> collected;
    /** The reports the shaper wrote to the shadow topic. */
    private static List<ConsumerRecord<byte[], byte[]>> shadowReports;
    private static int exitCode;

    @BeforeAll
    static void runTheShaperWithSecrets() throws Exception {
        TestCertificates certificates = TestCertificates.create(dir.resolve("certs"), STORE_PASSWORD);
        broker = KafkaBroker.startEmbeddedSecured(certificates);
        broker.createTopics(2, IN, OUT, REJECTED);
        broker.createTopics(1, FEEDBACK, SHADOW);
        broker.createTopics(1, Map.of("cleanup.policy", "compact"), RULES);
        broker.createScramUser(KAFKA_USER, KAFKA_PASSWORD);
        documentedAcls = DocumentedAcls.kafkaBindings("User:" + KAFKA_USER, Map.of("APP_ID", APP_ID, "INPUT", IN,
                "OUTPUT", OUT, "REJECTED", REJECTED, "FEEDBACK", FEEDBACK, "RULES", RULES, "SHADOW", SHADOW));
        // A rule in shadow, published by an administrator (the tests' own listener) before the start
        try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
                ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                new StringSerializer(), new StringSerializer())) {
            producer.send(new ProducerRecord<>(RULES, "tried", "{\"exact\": \"" + SHADOW_KEY + "\", \"rate\": 1,"
                    + " \"mode\": \"shadow\"}")).get(30, TimeUnit.SECONDS);
        }
        try (Admin admin = broker.admin()) {
            admin.createAcls(documentedAcls).all().get(30, TimeUnit.SECONDS);
        }
        redis = RedisServer.builder().tls(certificates)
                .user(REDIS_USER, REDIS_PASSWORD, DocumentedAcls.redisRules().toArray(String[]::new)).start();

        Properties settings = new Properties();
        settings.setProperty(StreamsConfig.APPLICATION_ID_CONFIG, APP_ID);
        settings.setProperty(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, broker.securedBootstrapServers());
        Map<String, String> kafkaSecurity = new java.util.HashMap<>(broker.securedClientSettings(KAFKA_USER,
                KAFKA_PASSWORD));
        // Two secrets come from the environment, as a pod passes them from a Secret; the third from the file.
        Map<String, String> environment = Map.of(
                "STREAMS_SASL_JAAS_CONFIG", kafkaSecurity.remove("sasl.jaas.config"),
                "SHAPER_REDIS_URI", redis.uri());
        settings.putAll(kafkaSecurity);
        settings.setProperty(StreamsConfig.STATE_DIR_CONFIG, dir.resolve("state").toString());
        settings.setProperty(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, "100");
        settings.setProperty(ShaperConfig.INPUT_TOPIC_CONFIG, IN);
        settings.setProperty(ShaperConfig.OUTPUT_TOPIC_CONFIG, OUT);
        settings.setProperty(ShaperConfig.REJECTED_TOPIC_CONFIG, REJECTED);
        settings.setProperty(ShaperConfig.SHAPING_RATE_CONFIG, "1000");
        // Admission through Redis (every record admitted), the total rate leased through Redis, and the closed
        // loop deciding through Redis: the three scripts the Redis user must be allowed to run.
        settings.setProperty(ShaperConfig.ADMISSION_RATE_CONFIG, "1000");
        settings.setProperty(ShaperConfig.ADMISSION_BURST_CONFIG, "1000");
        settings.setProperty(ShaperConfig.REDIS_TLS_CA_FILE_CONFIG, certificates.caPem().toString());
        settings.setProperty(ShaperConfig.REDIS_TIMEOUT_MS_CONFIG, "500"); // TLS on a busy test machine
        // A renewal period at least as long as that timeout (a quarter of the lease)
        settings.setProperty(ShaperConfig.CAPACITY_LEASE_MS_CONFIG, "2000");
        settings.setProperty(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "10000");
        settings.setProperty(ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "true");
        settings.setProperty(ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, FEEDBACK);
        settings.setProperty(ShaperConfig.RULES_TOPIC_CONFIG, RULES);
        settings.setProperty(ShaperConfig.SHADOW_TOPIC_CONFIG, SHADOW);
        Path settingsFile = ChildShaperSettings.write(settings, dir.resolve("shaper.properties"), "secured");
        assertThat(Files.readString(settingsFile)).contains(STORE_PASSWORD);
        assertThat(environment.values()).anyMatch(v -> v.contains(KAFKA_PASSWORD))
                .anyMatch(v -> v.contains(REDIS_PASSWORD));

        Files.deleteIfExists(LOG);
        httpPort = FreePort.find();
        // Kafka's client settings logged as well, to see the secrets in them masked
        shaper = ShaperProcess.start("secured", settingsFile, LOG, List.of("-Xmx256m", "-DLOG_FORMAT=json",
                        "-DKAFKA_CONFIG_LOG_LEVEL=INFO"), httpPort, environment);
        Await.until("the shaper ready (log: " + LOG.toAbsolutePath() + ")", Duration.ofSeconds(120), () -> {
            if (!shaper.isAlive()) {
                throw new AssertionError("the shaper exited with " + shaper.exitCode() + "; its log: "
                        + LOG.toAbsolutePath());
            }
            return Http.get(httpPort, "/health/ready").status() == 200;
        });

        // The admission's batched charges reach Redis within a sync, and a bucket's key expires once the bucket is full
        // again; the capacity's lease and decision are renewed on their own. So the keys are watched from the first
        // record on, not looked for once at the end, which a busy machine may reach after the bucket's key expired.
        List<String> watched = List.of(AdmissionAlgorithm.TOKEN_BUCKET.keyPrefix() + "{key-0}",
                CapacityLeaseScript.tableName(APP_ID),
                CapacityDecisionScript.keyName(APP_ID));
        Set<String> seen = ConcurrentHashMap.newKeySet();
        ScheduledExecutorService watch = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "redis-keys-watch");
            thread.setDaemon(true); // a failure before the end leaves nothing running
            return thread;
        });
        watch.scheduleWithFixedDelay(() -> watched.stream().filter(k -> redis.call("EXISTS", k).equals("1"))
                .forEach(seen::add), 0, 200, TimeUnit.MILLISECONDS);

        // Records through the tests' own (plain-text, super user) listener; the shaper reads them over SASL_SSL.
        List<RecordId> sent = new ArrayList<>();
        try (CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(), OUT,
                REJECTED)) {
            try (KafkaProducer<String, byte[]> producer = new KafkaProducer<>(Map.of(
                    ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()),
                    new StringSerializer(), new ByteArraySerializer())) {
                for (int seq = 0; seq < PER_KEY; seq++) {
                    for (int k = 0; k < KEYS; k++) {
                        RecordId id = new RecordId("key-" + k, seq);
                        producer.send(new ProducerRecord<>(IN, id.key(), id.toValue()));
                        sent.add(id);
                    }
                }
                for (int seq = 0; seq < SHADOW_RECORDS; seq++) {
                    RecordId id = new RecordId(SHADOW_KEY, seq);
                    producer.send(new ProducerRecord<>(IN, id.key(), id.toValue()));
                    sent.add(id);
                }
            }
            collector.awaitAccountedFor(sent, Duration.ofSeconds(60));
            collected = collector.snapshot();
        }
        shadowReports = CommittedRecords.read(broker.bootstrapServers(), SHADOW, SHADOW_RECORDS - 1);
        try {
            Await.until(() -> "the shaper's keys in Redis: " + watched + ", seen " + seen, Duration.ofSeconds(30),
                    () -> seen.containsAll(watched));
        } finally {
            watch.shutdownNow();
        }

        for (String path : List.of("/health/live", "/health/ready", "/metrics", "/capacity", "/buckets/key-0",
                "/buckets/no-such-key", "/health", "/")) {
            answers.put(path, answer(path));
        }
        exitCode = shaper.terminate(Duration.ofSeconds(60));
    }

    @AfterAll
    static void stopAll() throws Exception {
        if (shaper != null) {
            shaper.close();
        }
        if (redis != null) {
            redis.close();
        }
        if (broker != null) {
            broker.close();
        }
    }

    @Test
    void recordsFlowOverSaslSslWithTheDocumentedAclsAndAdmissionAndCapacityGoThroughRedisOverTls() throws Exception {
        // The authorizer refuses what no ACL allows: a user without ACLs cannot even see the input topic
        broker.createScramUser("nobody", "nobody-Pw");
        Map<String, Object> nobody = new java.util.HashMap<>(broker.securedClientSettings("nobody", "nobody-Pw"));
        nobody.put("bootstrap.servers", broker.securedBootstrapServers());
        try (Admin admin = Admin.create(nobody)) {
            assertThatThrownBy(() -> admin.describeTopics(List.of(IN)).allTopicNames().get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
        // Every record went out, none rejected
        assertThat(collected).hasSize(KEYS * PER_KEY + SHADOW_RECORDS).allMatch(CollectedRecord::isOutput);
        // The rule from the rules topic applied in shadow: the key's records passed, their would-be waits reported
        assertThat(shadowReports).hasSize(SHADOW_RECORDS - 1)
                .allSatisfy(report -> assertThat(new String(report.key(), StandardCharsets.UTF_8))
                        .isEqualTo(SHADOW_KEY));
        assertThat(PrometheusText.value(answers.get("/metrics"), "shaper_rules_topic_records_total",
                Map.of("outcome", "applied"))).isEqualTo(1);
        // Admission and the capacity ran on Redis, over TLS as the ACL user, and never fell back
        String metrics = answers.get("/metrics");
        assertThat(PrometheusText.value(metrics, "shaper_admission_backend", Map.of("backend", "redis")))
                .isEqualTo(1);
        assertThat(PrometheusText.sum(metrics, "shaper_redis_failure", Map.of())).isZero();
        assertThat(PrometheusText.value(metrics, "shaper_capacity_source", Map.of("source", "redis"))).isEqualTo(1);
        assertThat(PrometheusText.value(metrics, "shaper_capacity_decision_source", Map.of("source", "redis")))
                .isEqualTo(1);
        // The JVM's and the process's meters are in the scrape too
        assertThat(metrics).contains("jvm_memory_used_bytes", "jvm_gc_", "process_cpu_usage",
                "process_uptime_seconds", "process_files_open_files");
        // (a slow answer on a busy machine may count as an outage for a moment; a refusal never happened)
        assertThat(Files.readString(LOG, StandardCharsets.UTF_8)).doesNotContain("refuses the shaper's credentials",
                "does not let the shaper's user run a command", "fails the TLS handshake", "AuthorizationException");
        assertThat(answers.get("/health/ready")).startsWith("200 ");
        assertThat(answers.get("/capacity")).startsWith("200 ");
        assertThat(answers.get("/buckets/key-0")).as("a key's state, or that none is kept").containsPattern(
                "^(200|404) ").contains("\"key\":\"key-0\"");
        assertThat(exitCode).as("stopped by SIGTERM, the JVM's status for it").isEqualTo(143);
    }

    @Test
    void noSecretAppearsInAnyLogLineOrHttpAnswer() throws IOException {
        String log = Files.readString(LOG, StandardCharsets.UTF_8);
        for (String secret : SECRETS) {
            assertThat(log).as("the shaper's output (%s)", LOG.toAbsolutePath()).doesNotContain(secret);
            answers.forEach((path, answer) -> assertThat(answer).as("GET %s", path).doesNotContain(secret));
        }
        // The log is the shaper's whole output: its start, Kafka's client settings, the records' run and its stop;
        // the settings that hold the secrets are there, masked
        assertThat(log).contains("Effective settings", "ConsumerConfig values", "ProducerConfig values",
                "Kafka Streams closed cleanly");
        assertThat(log).contains("sasl.jaas.config=[hidden]", "ssl.truststore.password=[hidden]",
                "shaper.redis.uri=rediss:\\/\\/shaper:[hidden]@127.0.0.1:" + redis.port(),
                "sasl.jaas.config = [hidden]", "ssl.truststore.password = [hidden]");
        // With LOG_FORMAT=json every line the process wrote is one JSON object (the first is the test's header)
        List<String> lines = log.lines().filter(line -> !line.startsWith("===== ")).toList();
        assertThat(lines).hasSizeGreaterThan(10);
        Set<String> notJson = lines.stream().filter(line -> !isJsonObject(line)).collect(Collectors.toSet());
        assertThat(notJson).as("lines that are not JSON objects").isEmpty();
    }

    private static boolean isJsonObject(String line) {
        try {
            return JSON.readTree(line).isObject();
        } catch (IOException e) {
            return false;
        }
    }

    /** The whole answer to GET {@code path}: status, headers and body. */
    private static String answer(String path) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://localhost:" + httpPort + path))
                        .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
        return response.statusCode() + " " + response.headers().map() + "\n" + response.body();
    }
}
