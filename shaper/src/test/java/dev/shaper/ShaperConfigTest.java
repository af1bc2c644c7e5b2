package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.internals.capacity.adaptive.AdaptiveSettings;
import dev.shaper.internals.capacity.adaptive.CapacityBounds;
import dev.shaper.internals.capacity.adaptive.ControllerKind;
import dev.shaper.internals.config.SettingsLoader;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.common.config.ConfigException;
import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ShaperConfigTest {

    @Test
    void shouldUseTheDocumentedDefaultsAndExactlyOnce() {
        ShaperConfig config = new ShaperConfig(Map.of("bootstrap.servers", "b:9092", "application.id", "a"));
        assertThat(config.inputTopic()).isEqualTo("shaper-input");
        assertThat(config.outputTopic()).isEqualTo("shaper-shaped");
        assertThat(config.rejectedTopic()).isEqualTo("shaper-rejected");
        assertThat(config.defaultShapingRule()).isEqualTo(new ShapingRule(100, 10_000, 60_000));
        assertThat(config.totalRate()).isZero();
        assertThat(config.tickMs()).isEqualTo(100);
        assertThat(config.streamsProperties())
                .containsEntry(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, "exactly_once_v2")
                .containsEntry("bootstrap.servers", "b:9092")
                // Sizes are decided before a send; a handler inside a failed transaction cannot save a record.
                .doesNotContainKey(StreamsConfig.PRODUCTION_EXCEPTION_HANDLER_CLASS_CONFIG);
    }

    @Test
    void groupMemberWaitsTenSecondsForALostInstanceUnlessTheUserSaysOtherwise() {
        String key = "main.consumer.session.timeout.ms";
        assertThat(new ShaperConfig(Map.of()).streamsProperties()).containsEntry(key, "10000");
        for (String form : new String[] {"session.timeout.ms", "consumer.session.timeout.ms", key}) {
            Properties props = new ShaperConfig(Map.of(form, "30000")).streamsProperties();
            assertThat(props).as(form).containsEntry(form, "30000");
            if (!form.equals(key)) {
                assertThat(props).as(form).doesNotContainKey(key);
            }
        }
    }

    @Test
    void staticMembershipIsSeenInEveryFormThatReachesTheMainConsumer() {
        assertThat(new ShaperConfig(Map.of()).staticGroupMember()).isFalse();
        assertThat(new ShaperConfig(Map.of("group.instance.id", " ")).staticGroupMember()).isFalse();
        for (String form : new String[] {"group.instance.id", "consumer.group.instance.id",
                "main.consumer.group.instance.id"}) {
            assertThat(new ShaperConfig(Map.of(form, "shaper-0")).staticGroupMember()).as(form).isTrue();
        }
    }

    @Test
    void shouldRefuseARateThatIsNotAFiniteNumberInsteadOfTakingItAsNoLimit() {
        for (String key : List.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, ShaperConfig.CAPACITY_MIN_RATE_CONFIG,
                ShaperConfig.ADMISSION_RATE_CONFIG, ShaperConfig.SHAPING_RATE_CONFIG)) {
            for (String value : List.of("NaN", "Infinity", "-1")) {
                assertThatThrownBy(() -> new ShaperConfig(Map.of(key, value))).as(key + "=" + value)
                        .isInstanceOf(ConfigException.class).hasMessageContaining(key).hasMessageContaining(value)
                        .hasMessageContaining("finite number > 0");
            }
        }
        assertThat(new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "0")).totalRate()).isZero();
    }

    @Test
    void shouldRefuseAnOutputOrRejectedTopicThatIsTheInputTopic() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.INPUT_TOPIC_CONFIG, "t",
                ShaperConfig.OUTPUT_TOPIC_CONFIG, "t")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ShaperConfig.OUTPUT_TOPIC_CONFIG)
                .hasMessageContaining("other than the input topic");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.REJECTED_TOPIC_CONFIG, "shaper-input")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ShaperConfig.REJECTED_TOPIC_CONFIG);
    }

    @Test
    void producerMaxRequestSizeIsResolvedAsKafkaStreamsDoesWithThePrefixedFormWinning() {
        assertThat(new ShaperConfig(Map.of()).producerMaxRequestSize()).isEqualTo(1_048_576);
        assertThat(new ShaperConfig(Map.of("max.request.size", "2000000")).producerMaxRequestSize())
                .isEqualTo(2_000_000);
        assertThat(new ShaperConfig(Map.of("max.request.size", "2000000", "producer.max.request.size", "300000"))
                .producerMaxRequestSize()).isEqualTo(300_000);
        assertThat(new ShaperConfig(Map.of("compression.type", "LZ4")).producerCompressionType()).isEqualTo("lz4");
        assertThatThrownBy(() -> new ShaperConfig(Map.of("max.request.size", "big")).producerMaxRequestSize())
                .isInstanceOf(ConfigException.class).hasMessageContaining("max.request.size");
    }

    @Test
    void shouldEnforceWithoutAShadowTopicByDefaultAndTakeTheShadowSettings() {
        ShaperConfig defaults = new ShaperConfig(Map.of("bootstrap.servers", "b:9092", "application.id", "a"));
        assertThat(defaults.allInShadow()).isFalse();
        assertThat(defaults.shadowTopic()).isNull();

        ShaperConfig shadow = new ShaperConfig(Map.of("bootstrap.servers", "b:9092", "application.id", "a",
                ShaperConfig.MODE_CONFIG, "shadow", ShaperConfig.SHADOW_TOPIC_CONFIG, " shaper-shadow "));
        assertThat(shadow.allInShadow()).isTrue();
        assertThat(shadow.shadowTopic()).isEqualTo("shaper-shadow");
        assertThat(dev.shaper.internals.rules.RulesFile.forConfig(shadow).defaults().shadow()).isTrue();
    }

    @Test
    void shouldGiveTheDefaultPollMsForTheFastestRuleUnlessTheSettingsSetIt() {
        ShaperConfig defaults = new ShaperConfig(Map.of("bootstrap.servers", "b:9092", "application.id", "a"));
        assertThat(defaults.defaultPollMs(100)).isEqualTo(2); // a 5-ms tick at 100/s
        assertThat(defaults.defaultPollMs(1_000)).isEqualTo(1);
        assertThat(defaults.defaultPollMs(1)).isEqualTo(10);
        ShaperConfig set = new ShaperConfig(Map.of("bootstrap.servers", "b:9092", "application.id", "a",
                "poll.ms", "7"));
        assertThat(set.defaultPollMs(1_000)).isNull();
    }

    @Test
    void shouldRefuseABadModeAndAShadowTopicThatIsAnotherOfTheShapersTopics() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.MODE_CONFIG, "dry-run")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("shaper.mode")
                .hasMessageContaining("dry-run").hasMessageContaining("ENFORCE, SHADOW");
        for (String topic : List.of("shaper-input", "shaper-shaped", "shaper-rejected")) {
            assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHADOW_TOPIC_CONFIG, topic)))
                    .isInstanceOf(ConfigException.class).hasMessageContaining("shaper.shadow.topic")
                    .hasMessageContaining("expected a topic of its own");
        }
    }

    @Test
    void shouldLetTheUserChooseAnotherGuarantee() {
        ShaperConfig config = new ShaperConfig(Map.of("processing.guarantee", "at_least_once"));
        assertThat(config.streamsProperties()).containsEntry("processing.guarantee", "at_least_once");
    }

    @Test
    void producerLingersUnderExactlyOnceOnlyAndAGivenLingerWins() {
        String linger = "producer.linger.ms";
        assertThat(new ShaperConfig(Map.of()).streamsProperties()).containsEntry(linger, "10");
        assertThat(new ShaperConfig(Map.of("processing.guarantee", "at_least_once")).streamsProperties())
                .containsEntry(linger, "0");
        assertThat(new ShaperConfig(Map.of("processing.guarantee", "at_least_once", linger, "3")).streamsProperties())
                .containsEntry(linger, "3");
    }

    @Test
    void aUsersUnprefixedProducerSettingIsNotOverriddenByTheShapersPrefixedDefault() {
        Properties props = new ShaperConfig(Map.of("linger.ms", "50", "batch.size", "16384")).streamsProperties();
        assertThat(props).containsEntry("linger.ms", "50").containsEntry("batch.size", "16384")
                .doesNotContainKeys("producer.linger.ms", "producer.batch.size")
                .containsEntry("producer.buffer.memory", Long.toString(64L * 1024 * 1024));
        // What Kafka Streams hands its producers: the user's values
        props.put("application.id", "shaper-test");
        props.put("bootstrap.servers", "localhost:9092");
        Map<String, Object> producer = new StreamsConfig(props).getProducerConfigs("client");
        assertThat(producer).containsEntry("linger.ms", "50").containsEntry("batch.size", "16384");
    }

    @Test
    void restoreConsumerWaitsBrieflyForEmptyChangelogsUnlessTheUserSaysOtherwise() {
        Properties defaults = withClientBasics(new ShaperConfig(Map.of()).streamsProperties());
        StreamsConfig streams = new StreamsConfig(defaults);
        assertThat(streams.getRestoreConsumerConfigs("client")).containsEntry("fetch.max.wait.ms", "50");
        // The main consumer keeps Kafka's long poll: the shorter wait is for the restore consumer only.
        assertThat(streams.getMainConsumerConfigs("group", "client", 0)).doesNotContainKey("fetch.max.wait.ms");
        // A setting for the main consumer alone leaves the restore consumer's default in place.
        Properties mainOnly = withClientBasics(new ShaperConfig(Map.of("main.consumer.fetch.max.wait.ms", "200"))
                .streamsProperties());
        assertThat(new StreamsConfig(mainOnly).getRestoreConsumerConfigs("client"))
                .containsEntry("fetch.max.wait.ms", "50");

        for (String userKey : new String[] {"fetch.max.wait.ms", "consumer.fetch.max.wait.ms",
                "restore.consumer.fetch.max.wait.ms"}) {
            Properties props = withClientBasics(new ShaperConfig(Map.of(userKey, "200")).streamsProperties());
            assertThat(new StreamsConfig(props).getRestoreConsumerConfigs("client"))
                    .as("restore consumer with the user's %s", userKey)
                    .containsEntry("fetch.max.wait.ms", "200");
        }
    }

    private static Properties withClientBasics(Properties props) {
        props.put("application.id", "shaper-test");
        props.put("bootstrap.servers", "localhost:9092");
        return props;
    }

    @Test
    void shouldNameTheKeyTheValueAndTheExpectationOfABadValue() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "0")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value 0.0 for configuration shaper.shaping.rate: expected a finite"
                        + " number > 0");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_RATE_CONFIG, "fast")))
                .hasMessageContaining("Invalid value fast for configuration shaper.shaping.rate");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_MAX_QUEUE_CONFIG, "-1")))
                .hasMessageContaining("Invalid value -1 for configuration shaper.shaping.max.queue: Value must be"
                        + " at least 0");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_TICK_MS_CONFIG, "0")))
                .hasMessageContaining("shaper.shaping.tick.ms");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "-5")))
                .hasMessageContaining("shaper.shaping.total.rate");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.INPUT_TOPIC_CONFIG, "")))
                .hasMessageContaining("shaper.input.topic");
    }

    @Test
    void shouldValidateTheAdmissionSettingsWithoutEchoingARedisPassword() {
        ShaperConfig config = new ShaperConfig(Map.of(ShaperConfig.ADMISSION_RATE_CONFIG, "20",
                ShaperConfig.ADMISSION_MODE_CONFIG, "STRICT",
                ShaperConfig.REDIS_URI_CONFIG, "redis://app:s3cret@redis.internal:6380/2"));
        assertThat(config.defaultAdmissionRule()).isEqualTo(new dev.shaper.internals.admission.AdmissionRule(20, 20));
        assertThat(config.admissionMode()).isEqualTo(dev.shaper.internals.admission.AdmissionMode.STRICT);
        assertThat(config.redisUri()).isEqualTo("redis://app:s3cret@redis.internal:6380/2");
        assertThat(config.toString()).doesNotContain("s3cret");
        assertThat(new ShaperConfig(Map.of()).defaultAdmissionRule()).isNull();

        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.ADMISSION_MODE_CONFIG, "eventual")))
                .hasMessageContaining("shaper.admission.mode").hasMessageContaining("STRICT, BATCHED");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.ADMISSION_BURST_CONFIG, "0.5")))
                .hasMessageContaining("shaper.admission.burst: expected 0 or a finite number >= 1");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.REDIS_URI_CONFIG, "http://u:s3cret@h:1")))
                .hasMessageContaining("shaper.redis.uri").hasMessageContaining("redis://")
                .hasMessageNotContaining("s3cret");
    }

    @Test
    void shouldReadTheAdmissionAlgorithmAndRefuseABurstOrAFractionalRateForAWindow() {
        assertThat(new ShaperConfig(Map.of()).admissionAlgorithm()).isEqualTo(AdmissionAlgorithm.TOKEN_BUCKET);
        assertThat(new ShaperConfig(Map.of(ShaperConfig.ADMISSION_RATE_CONFIG, "20",
                ShaperConfig.ADMISSION_BURST_CONFIG, "30")).defaultAdmission())
                .isEqualTo(AdmissionPolicy.of(new AdmissionRule(20, 30)));
        ShaperConfig fixed = new ShaperConfig(Map.of(ShaperConfig.ADMISSION_RATE_CONFIG, "20",
                ShaperConfig.ADMISSION_ALGORITHM_CONFIG, "Fixed-Window"));
        assertThat(fixed.admissionAlgorithm()).isEqualTo(AdmissionAlgorithm.FIXED_WINDOW);
        assertThat(fixed.defaultAdmission()).isEqualTo(new AdmissionPolicy(AdmissionAlgorithm.FIXED_WINDOW,
                List.of(new AdmissionLimit(20, 1000, 20))));
        assertThat(new ShaperConfig(Map.of(ShaperConfig.ADMISSION_ALGORITHM_CONFIG, "sliding-window"))
                .defaultAdmission()).isNull();

        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.ADMISSION_ALGORITHM_CONFIG, "leaky-bucket")))
                .isInstanceOf(ConfigException.class).hasMessageContaining("shaper.admission.algorithm")
                .hasMessageContaining("TOKEN-BUCKET").hasMessageContaining("SLIDING-WINDOW");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.ADMISSION_ALGORITHM_CONFIG, "fixed-window",
                ShaperConfig.ADMISSION_RATE_CONFIG, "20", ShaperConfig.ADMISSION_BURST_CONFIG, "40")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("shaper.admission.burst: expected 0 with shaper.admission.algorithm=fixed-window");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.ADMISSION_ALGORITHM_CONFIG, "sliding-window",
                ShaperConfig.ADMISSION_RATE_CONFIG, "0.5")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("shaper.admission.rate: expected 0 or at least 1 with shaper.admission.algorithm"
                        + "=sliding-window");
    }

    @Test
    void shouldRefuseARedisUriWhosePortIsNotANumberInsteadOfTakingItAsPartOfTheHost() {
        // Lettuce alone parses these with the host "127.0.0.1:notaport" (or ":6379") and the default port.
        for (String uri : List.of("redis://127.0.0.1:notaport", "rediss://s3cret@redis.internal:63a9/1",
                "redis://:6379", "redis://u:s3cret@h:-1")) {
            assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.REDIS_URI_CONFIG, uri)))
                    .as(uri)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("shaper.redis.uri")
                    .hasMessageContaining("redis://[user:password@]host:port[/db]")
                    .hasMessageNotContaining("s3cret");
        }
        // IPv6 literals keep their colons inside brackets; a URI without a port means Redis's 6379.
        assertThat(new ShaperConfig(Map.of(ShaperConfig.REDIS_URI_CONFIG, "redis://[::1]:6380")).redisUri())
                .isEqualTo("redis://[::1]:6380");
        assertThat(new ShaperConfig(Map.of(ShaperConfig.REDIS_URI_CONFIG, "redis://redis.internal")).redisUri())
                .isEqualTo("redis://redis.internal");
    }

    @Test
    void shouldTakeARedisClusterUriAndRefuseAMalformedOneNamingTheKeyAndTheForm() {
        assertThat(new ShaperConfig(Map.of(ShaperConfig.REDIS_URI_CONFIG,
                "redis-cluster://app:s3cret@10.0.0.1:7000,10.0.0.2:7001")).redisUri())
                .isEqualTo("redis-cluster://app:s3cret@10.0.0.1:7000,10.0.0.2:7001");
        assertThat(new ShaperConfig(Map.of(ShaperConfig.REDIS_URI_CONFIG, "rediss-cluster://redis-0:6380"))
                .redisUri()).isEqualTo("rediss-cluster://redis-0:6380");

        for (String uri : List.of("redis-cluster://app:s3cret@10.0.0.1:7000/1",
                "redis-cluster://app:s3cret@10.0.0.1:7000,,10.0.0.2:7001", "redis-cluster://app:s3cret@10.0.0.1:x")) {
            assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.REDIS_URI_CONFIG, uri)))
                    .as(uri)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining("shaper.redis.uri")
                    .hasMessageContaining("redis-cluster://[user:password@]host:port[,host:port...]")
                    .hasMessageNotContaining("s3cret");
        }
    }

    @Test
    void shouldTakeAPemFileOfTrustedCasForRedisTlsAndRefuseAMissingOne(@TempDir Path dir) throws Exception {
        assertThat(new ShaperConfig(Map.of()).redisTlsCaFile()).as("the JVM's truststore").isNull();
        Path ca = Files.writeString(dir.resolve("ca.pem"), "-----BEGIN CERTIFICATE-----\n");
        assertThat(new ShaperConfig(Map.of(ShaperConfig.REDIS_TLS_CA_FILE_CONFIG, ca.toString())).redisTlsCaFile())
                .isEqualTo(ca);
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.REDIS_TLS_CA_FILE_CONFIG,
                dir.resolve("missing.pem").toString())))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("shaper.redis.tls.ca.file")
                .hasMessageContaining("expected the path of a readable file");
    }

    @Test
    void shouldLeaveTheCapacityFixedWhenTheAdaptiveSettingsAreNotGiven() {
        ShaperConfig config = new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500"));
        assertThat(config.capacityAdaptive()).isFalse();
        assertThat(config.feedbackTopic()).isNull();
        assertThat(config.adaptiveCapacity()).isNull();
        assertThat(config.capacityMinRate()).as("a tenth of the total rate").isEqualTo(50);
    }

    @Test
    void shouldUseTheDocumentedDefaultsWhenTheCapacityIsAdaptive() {
        // Given: only what the loop needs, a total rate and a feedback topic
        ShaperConfig config = new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "2000",
                ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, " db-feedback ",
                ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "true"));

        // Then: from a tenth of the total to the total, 100 ms p99, 1 % errors, a decision a second, AIMD
        assertThat(config.feedbackTopic()).isEqualTo("db-feedback");
        assertThat(config.adaptiveCapacity()).isEqualTo(new AdaptiveSettings(new CapacityBounds(200, 2_000), 100,
                0.01, 1_000, 5_000, 30_000, ControllerKind.AIMD));
    }

    @Test
    void shouldTakeEveryAdaptiveSettingWhenGiven() {
        ShaperConfig config = new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "2000",
                ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, "db-feedback",
                ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "true",
                ShaperConfig.CAPACITY_MIN_RATE_CONFIG, "150",
                ShaperConfig.CAPACITY_TARGET_LATENCY_MS_CONFIG, "40",
                ShaperConfig.CAPACITY_MAX_ERROR_RATIO_CONFIG, "0.05",
                ShaperConfig.CAPACITY_ADJUST_MS_CONFIG, "500",
                ShaperConfig.CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG, "3000",
                ShaperConfig.CAPACITY_WARMUP_MS_CONFIG, "0",
                ShaperConfig.CAPACITY_CONTROLLER_CONFIG, "Gradient"));
        assertThat(config.adaptiveCapacity()).isEqualTo(new AdaptiveSettings(new CapacityBounds(150, 2_000), 40,
                0.05, 500, 3_000, 0, ControllerKind.GRADIENT));
    }

    @Test
    void shouldRefuseAdaptiveCapacityWhenTheFeedbackTopicOrTheTotalRateIsMissing() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500",
                ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "true")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ShaperConfig.CAPACITY_ADAPTIVE_CONFIG)
                .hasMessageContaining("needs " + ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG);
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, "db-feedback",
                ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "true")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ShaperConfig.CAPACITY_ADAPTIVE_CONFIG)
                .hasMessageContaining("needs " + ShaperConfig.SHAPING_TOTAL_RATE_CONFIG + " > 0");
    }

    @Test
    void shouldRefuseAdaptiveCapacityWhenEachPartitionHasAFixedShare() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500",
                ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, "db-feedback",
                ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, ShaperConfig.TOTAL_SCOPE_PARTITION,
                ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "true")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value true for configuration " + ShaperConfig.CAPACITY_ADAPTIVE_CONFIG)
                .hasMessageContaining("needs " + ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG + "=cluster, not partition");
    }

    @Test
    void shouldRefuseAMinimumAboveTheTotalRateWhenBothAreSet() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500",
                ShaperConfig.CAPACITY_MIN_RATE_CONFIG, "600")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value 600.0 for configuration " + ShaperConfig.CAPACITY_MIN_RATE_CONFIG)
                .hasMessageContaining("at most " + ShaperConfig.SHAPING_TOTAL_RATE_CONFIG + " (500.0)");
        assertThat(new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500",
                ShaperConfig.CAPACITY_MIN_RATE_CONFIG, "500")).capacityMinRate()).isEqualTo(500);
    }

    @Test
    void shouldRefuseAFeedbackTimeoutShorterThanTwoDecisionsWhenTheCapacityIsAdaptive() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500",
                ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, "db-feedback",
                ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "true",
                ShaperConfig.CAPACITY_ADJUST_MS_CONFIG, "2000",
                ShaperConfig.CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG, "3000")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining(ShaperConfig.CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG)
                .hasMessageContaining("at least twice " + ShaperConfig.CAPACITY_ADJUST_MS_CONFIG + " (2000 ms)");
    }

    @Test
    void shouldRefuseARedisTimeoutLongerThanARenewalPeriodWhenTheCapacityIsLeased() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500",
                ShaperConfig.REDIS_URI_CONFIG, "redis://127.0.0.1:6379",
                ShaperConfig.REDIS_TIMEOUT_MS_CONFIG, "300")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("Invalid value 300 for configuration " + ShaperConfig.REDIS_TIMEOUT_MS_CONFIG)
                .hasMessageContaining("at most a quarter of " + ShaperConfig.CAPACITY_LEASE_MS_CONFIG + " (1000 ms, so"
                        + " at most 250 ms)");
        // A longer lease makes room for it; without a lease (scope partition, or no Redis) any timeout is fine
        assertThat(new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500",
                ShaperConfig.REDIS_URI_CONFIG, "redis://127.0.0.1:6379", ShaperConfig.REDIS_TIMEOUT_MS_CONFIG, "300",
                ShaperConfig.CAPACITY_LEASE_MS_CONFIG, "1200")).redisTimeout()).hasMillis(300);
        assertThat(new ShaperConfig(Map.of(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG, "500",
                ShaperConfig.SHAPING_TOTAL_SCOPE_CONFIG, ShaperConfig.TOTAL_SCOPE_PARTITION,
                ShaperConfig.REDIS_URI_CONFIG, "redis://127.0.0.1:6379", ShaperConfig.REDIS_TIMEOUT_MS_CONFIG, "300"))
                .redisTimeout()).hasMillis(300);
    }

    @Test
    void shouldRefuseAFeedbackTopicThatIsOneOfTheShapersOwnTopics() {
        for (String topic : List.of("shaper-input", "shaper-shaped", "shaper-rejected")) {
            assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG, topic)))
                    .as(topic)
                    .isInstanceOf(ConfigException.class)
                    .hasMessageContaining(ShaperConfig.CAPACITY_FEEDBACK_TOPIC_CONFIG)
                    .hasMessageContaining("a topic of its own");
        }
    }

    @Test
    void shouldNameTheKeyAndTheExpectationWhenAnAdaptiveSettingIsOutOfRange() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_MAX_ERROR_RATIO_CONFIG, "1.5")))
                .hasMessageContaining("shaper.capacity.max.error.ratio: Value must be no more than 1.0");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_TARGET_LATENCY_MS_CONFIG, "0")))
                .hasMessageContaining("shaper.capacity.target.latency.ms: expected a finite number > 0");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_MIN_RATE_CONFIG, "-1")))
                .hasMessageContaining("shaper.capacity.min.rate: expected 0 (none) or a finite number > 0");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_ADJUST_MS_CONFIG, "10")))
                .hasMessageContaining("shaper.capacity.adjust.ms: Value must be at least 100");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_FEEDBACK_TIMEOUT_MS_CONFIG, "0")))
                .hasMessageContaining("shaper.capacity.feedback.timeout.ms");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_WARMUP_MS_CONFIG, "-1")))
                .hasMessageContaining("shaper.capacity.warmup.ms");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_CONTROLLER_CONFIG, "pid")))
                .hasMessageContaining("shaper.capacity.controller").hasMessageContaining("AIMD, GRADIENT");
        assertThatThrownBy(() -> new ShaperConfig(Map.of(ShaperConfig.CAPACITY_ADAPTIVE_CONFIG, "maybe")))
                .hasMessageContaining("shaper.capacity.adaptive");
    }

    @Test
    void shouldRefuseAnUnknownShaperKeyInsteadOfIgnoringATypo() {
        assertThatThrownBy(() -> new ShaperConfig(Map.of("shaper.shaping.rat", "5")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("shaper.shaping.rat")
                .hasMessageContaining("no such shaper setting")
                .hasMessageContaining("shaper.shaping.rate");
    }

    @Test
    void shouldDocumentEveryKey() {
        ShaperConfig.configDef().configKeys().values().forEach(key -> {
            assertThat(key.name).startsWith(ShaperConfig.PREFIX);
            assertThat(key.documentation).as(key.name).isNotBlank().doesNotContain("  ");
        });
    }

    @Test
    void shouldLetEnvironmentVariablesOverrideTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("shaper.properties");
        Files.writeString(file, "bootstrap.servers=file:9092\nshaper.shaping.rate = 5\nshaper.shaping.tick.ms=50\n");
        Map<String, String> settings = SettingsLoader.load(file, Map.of(
                "SHAPER_SHAPING_RATE", "7.5",
                "STREAMS_BOOTSTRAP_SERVERS", "env:9092",
                "HOME", "/root"));
        assertThat(settings).containsEntry("shaper.shaping.rate", "7.5")
                .containsEntry("bootstrap.servers", "env:9092")
                .containsEntry("shaper.shaping.tick.ms", "50")
                .doesNotContainKey("home");
        assertThat(SettingsLoader.toEnvironmentName("shaper.shaping.max.delay.ms"))
                .isEqualTo("SHAPER_SHAPING_MAX_DELAY_MS");
        assertThat(SettingsLoader.toEnvironmentName("bootstrap.servers")).isEqualTo("STREAMS_BOOTSTRAP_SERVERS");
    }

    @Test
    void shouldIgnoreTheVariablesKubernetesSetsForAServiceNamedShaper(@TempDir Path dir) throws Exception {
        // Given: the variables Kubernetes injects into every pod when a Service is named "shaper", beside a real one
        Path file = dir.resolve("shaper.properties");
        Files.writeString(file, "bootstrap.servers=file:9092\n");
        Map<String, String> environment = Map.of(
                "SHAPER_SERVICE_HOST", "10.0.0.7",
                "SHAPER_SERVICE_PORT", "8080",
                "SHAPER_PORT", "tcp://10.0.0.7:8080",
                "SHAPER_PORT_8080_TCP_ADDR", "10.0.0.7",
                "SHAPER_SHAPING_RATE", "7.5");

        // When: the settings are loaded
        Map<String, String> settings = SettingsLoader.load(file, environment);

        // Then: the real setting applies, the others are named as ignored, and the shaper accepts the settings
        assertThat(settings).containsEntry("shaper.shaping.rate", "7.5")
                .doesNotContainKeys("shaper.service.host", "shaper.port", "shaper.port.8080.tcp.addr");
        assertThat(SettingsLoader.ignoredVariables(environment)).containsExactly("SHAPER_PORT",
                "SHAPER_PORT_8080_TCP_ADDR", "SHAPER_SERVICE_HOST", "SHAPER_SERVICE_PORT");
        assertThat(new ShaperConfig(settings).defaultShapingRule().ratePerSecond()).isEqualTo(7.5);
    }

    @Test
    void shouldStillRefuseAMisspeltShaperKeyInTheSettingsFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("shaper.properties");
        Files.writeString(file, "bootstrap.servers=file:9092\nshaper.shaping.rat=5\n");
        Map<String, String> settings = SettingsLoader.load(file, Map.of());
        assertThatThrownBy(() -> new ShaperConfig(settings)).isInstanceOf(ConfigException.class)
                .hasMessageContaining("shaper.shaping.rat");
    }

    @Test
    void pollMsFollowsTheDefaultRateAndTheStartAsksForTheRulesFastest() {
        // Given: a default rate of 25/s (a 20 ms tick: poll.ms 10)
        ShaperConfig config = new ShaperConfig(Map.of("shaper.shaping.rate", "25"));

        // Then: the settings alone take poll.ms from it; the start asks again for its rules' fastest (100/s: 2)
        assertThat(config.streamsProperties()).containsEntry(StreamsConfig.POLL_MS_CONFIG, "10");
        assertThat(config.defaultPollMs(100)).isEqualTo(2);
    }
}
