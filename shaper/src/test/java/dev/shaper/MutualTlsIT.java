package dev.shaper;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shaper.testsupport.CollectedRecord;
import dev.shaper.testsupport.CommittedRecordCollector;
import dev.shaper.testsupport.DocumentedAcls;
import dev.shaper.testsupport.KafkaBroker;
import dev.shaper.testsupport.RecordId;
import dev.shaper.testsupport.ShaperInstance;
import dev.shaper.testsupport.TestCertificates;
import dev.shaper.testsupport.Workload;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.errors.SslAuthenticationException;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The shaper on a mutual-TLS listener, as {@code docs/security.md} describes it: {@code security.protocol=SSL} with a
 * client certificate signed by the brokers' CA, whose distinguished name is the shaper's principal
 * ({@code User:CN=shaper}), and an authorizer that allows that principal exactly the ACLs the page lists. Records
 * flow through; a client without a certificate does not get past the handshake.
 */
@Order(3) // among the slowest classes: started first in the parallel run
class MutualTlsIT {

    private static final String APP_ID = "mtls-shaper";
    private static final String IN = "mtls-in";
    private static final String OUT = "mtls-out";
    private static final String REJECTED = "mtls-rejected";

    @TempDir
    Path dir;

    @Test
    @Timeout(180)
    void shouldShapeOverMutualTlsWithTheDocumentedAclsForTheCertificatesPrincipal() throws Exception {
        TestCertificates certificates = TestCertificates.create(dir.resolve("certs"));
        try (KafkaBroker broker = KafkaBroker.startEmbeddedSecured(certificates)) {
            // Given: the topics, and the page's ACLs for the certificate's principal (the optional topics unused)
            broker.createTopics(2, IN, OUT, REJECTED);
            try (Admin admin = broker.admin()) {
                admin.createAcls(DocumentedAcls.kafkaBindings("User:" + TestCertificates.CLIENT_DN, Map.of(
                        "APP_ID", APP_ID, "INPUT", IN, "OUTPUT", OUT, "REJECTED", REJECTED,
                        "FEEDBACK", "mtls-unused-feedback", "RULES", "mtls-unused-rules",
                        "SHADOW", "mtls-unused-shadow"))).all().get(30, TimeUnit.SECONDS);
            }
            Map<String, Object> settings = ShaperInstance.baseSettings(broker.mutualTlsBootstrapServers(), APP_ID);
            settings.putAll(broker.mutualTlsClientSettings());
            settings.put(ShaperConfig.INPUT_TOPIC_CONFIG, IN);
            settings.put(ShaperConfig.OUTPUT_TOPIC_CONFIG, OUT);
            settings.put(ShaperConfig.REJECTED_TOPIC_CONFIG, REJECTED);
            settings.put(ShaperConfig.SHAPING_RATE_CONFIG, 1_000);

            // When: the shaper runs over mutual TLS, and records arrive (through the tests' own listener)
            try (ShaperInstance shaper = ShaperInstance.start(settings);
                 CommittedRecordCollector collector = CommittedRecordCollector.start(broker.bootstrapServers(),
                         OUT, REJECTED)) {
                ShaperInstance.awaitBalanced(Duration.ofSeconds(60), shaper);
                List<RecordId> ids = Workload.interleaved(10, 0, 20);
                Workload.send(broker.bootstrapServers(), IN, ids, 0);

                // Then: every record went out, none rejected
                collector.awaitAccountedFor(ids, Duration.ofSeconds(60));
                assertThat(collector.snapshot()).hasSize(ids.size()).allMatch(CollectedRecord::isOutput);
            }

            // And: a client that shows no certificate is refused at the handshake
            Map<String, Object> noCertificate = new HashMap<>(broker.mutualTlsClientSettings());
            noCertificate.keySet().removeIf(key -> key.startsWith("ssl.keystore") || key.equals("ssl.key.password"));
            noCertificate.put("bootstrap.servers", broker.mutualTlsBootstrapServers());
            try (Admin anonymous = Admin.create(noCertificate)) {
                assertThatThrownBy(() -> anonymous.describeTopics(List.of(IN)).allTopicNames()
                        .get(30, TimeUnit.SECONDS)).hasCauseInstanceOf(SslAuthenticationException.class);
            }
        }
    }
}
