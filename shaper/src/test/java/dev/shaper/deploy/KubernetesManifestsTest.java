package dev.shaper.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.shaper.ShaperApplication;
import dev.shaper.ShaperConfig;
import dev.shaper.internals.config.EffectiveSettings;
import dev.shaper.internals.config.SettingNames;
import dev.shaper.internals.config.SettingsLoader;
import dev.shaper.internals.http.OperationsServer;
import dev.shaper.internals.metrics.AllMeters;
import dev.shaper.internals.rules.RulesFile;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.IntOrString;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Probe;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.state.HostInfo;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * deploy/kubernetes, read without a cluster: every manifest of the Kustomize base parsed into fabric8's typed model
 * (PrometheusRule and ServiceMonitor, custom resources, as generic ones), and their wiring checked against each
 * other, the image (shaper/pom.xml's Jib configuration, {@link JibImage}) and the shaper itself: its settings, its
 * HTTP routes, its close timeout and the metric names it exposes.
 */
class KubernetesManifestsTest {

    private static final Path KUBERNETES = Path.of("..", "deploy", "kubernetes");
    private static final Path BASE = KUBERNETES.resolve("base");
    private static final Path OVERLAYS = KUBERNETES.resolve("overlays");
    private static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    /** What fieldRefs stand for in the checks: the first pod of the StatefulSet in a namespace "prod". */
    private static final Map<String, String> FIELDS = Map.of("metadata.name", "shaper-0",
            "metadata.namespace", "prod");
    private static final Pattern VARIABLE_REFERENCE = Pattern.compile("\\$\\(([A-Za-z_][A-Za-z0-9_]*)\\)");
    /** Head room beyond the heap and RocksDB's cache: metaspace, code, threads, direct buffers, RocksDB's own. */
    private static final long JVM_AND_ROCKSDB_OVERHEAD = 512L << 20;

    private static final Map<String, JsonNode> documents = new LinkedHashMap<>();
    private static StatefulSet statefulSet;
    private static final Map<String, Service> services = new LinkedHashMap<>();
    private static PodDisruptionBudget disruptionBudget;
    private static JsonNode serviceMonitor;
    private static JsonNode prometheusRule;
    private static JibImage image;

    @BeforeAll
    static void readBase() throws Exception {
        image = JibImage.of(Path.of("."));
        for (String file : kustomization(BASE).resources()) {
            List<JsonNode> docs = YAML.readValues(YAML.createParser(BASE.resolve(file).toFile()), JsonNode.class)
                    .readAll();
            assertThat(docs).as("documents in %s", file).hasSize(1);
            JsonNode doc = docs.get(0);
            documents.put(file, doc);
            switch (doc.path("kind").asText()) {
                case "StatefulSet" -> statefulSet = typed(doc, StatefulSet.class);
                case "Service" -> {
                    Service service = typed(doc, Service.class);
                    services.put(service.getMetadata().getName(), service);
                }
                case "PodDisruptionBudget" -> disruptionBudget = typed(doc, PodDisruptionBudget.class);
                case "ServiceAccount" -> typed(doc, ServiceAccount.class);
                case "ServiceMonitor" -> serviceMonitor = custom(doc);
                case "PrometheusRule" -> prometheusRule = custom(doc);
                default -> throw new AssertionError(file + ": a kind this test does not check: " + doc.path("kind"));
            }
        }
    }

    // --- the kustomization ----------------------------------------------------------------------------------

    @Test
    void shouldListEveryFileOfTheBaseInItsKustomization() throws IOException {
        Set<String> files = new TreeSet<>();
        try (Stream<Path> listing = Files.list(BASE)) {
            listing.map(p -> p.getFileName().toString()).filter(name -> !name.equals("kustomization.yaml"))
                    .forEach(files::add);
        }
        assertThat(new TreeSet<>(kustomization(BASE).resources())).as("resources of base/kustomization.yaml")
                .isEqualTo(files);
    }

    @Test
    void shouldFindEveryFileAnOverlayNames() throws IOException {
        try (Stream<Path> overlays = Files.list(OVERLAYS)) {
            for (Path overlay : overlays.toList()) {
                Kustomization k = kustomization(overlay);
                assertThat(k.resources()).as("%s resources", overlay).isNotEmpty();
                for (String named : k.allFiles()) {
                    assertThat(overlay.resolve(named)).as("%s names %s", overlay, named).exists();
                }
            }
        }
    }

    @Test
    void shouldGiveTheExampleOverlaysPodsRealSettingsAndItsRulesFile() throws Exception {
        Path overlay = OVERLAYS.resolve("example");
        StatefulSet patch = typed(YAML.readTree(overlay.resolve("statefulset-patch.yaml").toFile()), StatefulSet.class);
        assertThat(patch.getMetadata().getName()).isEqualTo(statefulSet.getMetadata().getName());
        Container patched = patch.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertThat(patched.getName()).isEqualTo(shaperContainer().getName());
        assertThat(SettingNames.unknownVariables(values(patched.getEnv()))).isEmpty();
        // The base's environment with the patch's merged in by name, as a strategic merge patch does
        Map<String, String> env = new LinkedHashMap<>(env(shaperContainer()));
        env.putAll(values(patched.getEnv()));
        ShaperConfig config = new ShaperConfig(settings(env));
        // The rules file is the ConfigMap's, mounted where SHAPER_RULES_FILE points, and the shaper accepts it
        String rulesFile = config.getString(ShaperConfig.RULES_FILE_CONFIG);
        VolumeMount mount = patched.getVolumeMounts().stream().filter(m -> rulesFile.startsWith(m.getMountPath() + "/"))
                .findFirst().orElseThrow(() -> new AssertionError("nothing mounted where " + rulesFile + " lies"));
        Volume volume = patch.getSpec().getTemplate().getSpec().getVolumes().stream()
                .filter(v -> v.getName().equals(mount.getName())).findFirst().orElseThrow();
        assertThat(volume.getConfigMap()).isNotNull();
        String fileName = rulesFile.substring(mount.getMountPath().length() + 1);
        assertThat(kustomization(overlay).allFiles()).contains(fileName);
        assertThatCode(() -> RulesFile.load(overlay.resolve(fileName), config.defaultShapingRule()))
                .doesNotThrowAnyException();
    }

    @Test
    void shouldParseEveryManifestIntoTheTypedModel() {
        Map<String, String> kinds = new LinkedHashMap<>();
        documents.values().forEach(doc -> kinds.merge(doc.path("kind").asText(), doc.path("apiVersion").asText(),
                (a, b) -> a));
        assertThat(kinds).containsExactlyInAnyOrderEntriesOf(Map.of("ServiceAccount", "v1",
                "StatefulSet", "apps/v1", "Service", "v1", "PodDisruptionBudget", "policy/v1",
                "ServiceMonitor", "monitoring.coreos.com/v1", "PrometheusRule", "monitoring.coreos.com/v1"));
        assertThat(services).hasSize(2);
    }

    // --- the pods ---------------------------------------------------------------------------------------------

    @Test
    void shouldProbeTheShapersHealthPathsOnItsHttpPort() throws Exception {
        Container shaper = shaperContainer();
        int httpPort = new ShaperConfig(settings(env(shaper))).httpPort();
        // Liveness (and the start-up's) on the live path, readiness on the ready path: the routes the shaper serves
        assertThat(path(shaper.getLivenessProbe())).isEqualTo(OperationsServer.LIVE_PATH);
        assertThat(path(shaper.getStartupProbe())).isEqualTo(OperationsServer.LIVE_PATH);
        assertThat(path(shaper.getReadinessProbe())).isEqualTo(OperationsServer.READY_PATH);
        // On a port of the container's, the one the shaper listens on
        for (Probe probe : List.of(shaper.getLivenessProbe(), shaper.getStartupProbe(), shaper.getReadinessProbe())) {
            assertThat(containerPort(shaper, probe.getHttpGet().getPort()).getContainerPort()).isEqualTo(httpPort);
        }
        assertThat(image.ports()).contains(httpPort);
    }

    @Test
    void shouldNameOnlyRealSettingsAndPassTheShapersValidation() throws Exception {
        List<EnvVar> env = shaperContainer().getEnv();
        // Every SHAPER_*/STREAMS_* variable names a setting (as ComposeSettingsTest for docker-compose.yml)
        assertThat(SettingNames.unknownVariables(values(env))).as("variables that name no setting").isEmpty();
        // A $(VAR) refers to a variable defined before it (Kubernetes leaves it as it is otherwise)
        Set<String> defined = new HashSet<>();
        for (EnvVar variable : env) {
            if (variable.getValue() != null) {
                Matcher m = VARIABLE_REFERENCE.matcher(variable.getValue());
                while (m.find()) {
                    assertThat(defined).as("%s refers to $(%s)", variable.getName(), m.group(1))
                            .contains(m.group(1));
                }
            }
            defined.add(variable.getName());
        }
        // And what the pod starts with passes the shaper's and Kafka Streams' validation
        ShaperConfig config = new ShaperConfig(settings(values(env)));
        assertThatCode(() -> new StreamsConfig(config.streamsProperties())).doesNotThrowAnyException();
        assertThat(config.staticGroupMember()).as("group.instance.id per pod").isTrue();
        // Logs as the cluster's collector reads them: one JSON object per line (docs/logging.md)
        assertThat(values(env)).containsEntry("LOG_FORMAT", "json");
    }

    @Test
    void shouldTakeKafkaAndRedisCredentialsFromSecrets() throws Exception {
        Container shaper = shaperContainer();
        Map<String, String> settings = new LinkedHashMap<>();
        for (EnvVar variable : shaper.getEnv()) {
            for (String key : SettingsLoader.fromEnvironment(Map.of(variable.getName(), "x")).keySet()) {
                boolean secret = EffectiveSettings.isSecretKey(key) || key.equals(ShaperConfig.REDIS_URI_CONFIG);
                if (secret) {
                    assertThat(variable.getValue()).as("%s as a literal", variable.getName()).isNull();
                    assertThat(variable.getValueFrom().getSecretKeyRef()).as("%s from a Secret", variable.getName())
                            .isNotNull();
                }
                settings.put(key, variable.getValue());
            }
        }
        assertThat(settings).containsKeys("sasl.jaas.config", ShaperConfig.REDIS_URI_CONFIG);
        // Kafka over TLS, its CA from a mounted Secret
        assertThat(settings.get("security.protocol")).isIn("SASL_SSL", "SSL");
        String truststore = settings.get("ssl.truststore.location");
        assertThat(truststore).isNotNull();
        assertThat(mountFor(shaper, truststore)).as("volume holding %s", truststore)
                .satisfies(volume -> assertThat(volume.getSecret()).isNotNull());
    }

    @Test
    void shouldReachEachPodByItsNameThroughTheHeadlessServiceAsApplicationServer() throws Exception {
        Service headless = services.get(statefulSet.getSpec().getServiceName());
        assertThat(headless).as("the StatefulSet's serviceName is a Service of the base").isNotNull();
        assertThat(headless.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(headless.getSpec().getPublishNotReadyAddresses()).isTrue();
        Container shaper = shaperContainer();
        Map<String, String> settings = settings(env(shaper));
        HostInfo self = HostInfo.buildFromEndpoint(settings.get(StreamsConfig.APPLICATION_SERVER_CONFIG));
        assertThat(self.host()).isEqualTo(FIELDS.get("metadata.name") + "." + headless.getMetadata().getName() + "."
                + FIELDS.get("metadata.namespace") + ".svc");
        assertThat(self.port()).isEqualTo(new ShaperConfig(settings).httpPort());
    }

    @Test
    void shouldMountTheStateVolumeAtTheStateDirWritableByTheImagesUser() throws Exception {
        Container shaper = shaperContainer();
        String stateDir = ImageConfigTest.stateDir(image, env(shaper));
        List<String> claims = statefulSet.getSpec().getVolumeClaimTemplates().stream()
                .map(PersistentVolumeClaim::getMetadata).map(m -> m.getName()).toList();
        VolumeMount state = shaper.getVolumeMounts().stream().filter(m -> m.getMountPath().equals(stateDir))
                .findFirst().orElseThrow(() -> new AssertionError("nothing mounted at state.dir " + stateDir));
        assertThat(claims).as("a volume claim template mounted at " + stateDir).contains(state.getName());
        assertThat(podSpec().getVolumes()).extracting(Volume::getName).doesNotContain(state.getName());
        // The image's user, and a group that owns the volume
        String[] user = image.user().split(":");
        assertThat(podSpec().getSecurityContext().getRunAsUser()).isEqualTo(Long.parseLong(user[0]));
        assertThat(podSpec().getSecurityContext().getRunAsNonRoot()).isTrue();
        assertThat(podSpec().getSecurityContext().getFsGroup()).isEqualTo(Long.parseLong(user[user.length - 1]));
        // No SHAPER_SERVICE_HOST and the like for the Service named shaper
        assertThat(podSpec().getEnableServiceLinks()).isFalse();
    }

    @Test
    void shouldOutwaitTheShapersCloseBeforeKillingThePod() {
        long closeSeconds = ShaperApplication.CLOSE_TIMEOUT.toSeconds();
        // Kafka Streams' close, then admission's last sync, the leases and the HTTP server: 10 s of margin at least
        assertThat(podSpec().getTerminationGracePeriodSeconds()).isGreaterThanOrEqualTo(closeSeconds + 10);
    }

    @Test
    void shouldSizeTheMemoryForTheHeapRocksDbAndTheRest() throws Exception {
        Container shaper = shaperContainer();
        Quantity limit = shaper.getResources().getLimits().get("memory");
        assertThat(limit).as("memory limit").isNotNull();
        assertThat(shaper.getResources().getRequests().get("memory")).as("request = limit: never OOM-killed for"
                + " another pod's use").isEqualTo(limit);
        long limitBytes = Quantity.getAmountInBytes(limit).longValueExact();
        double heapShare = Double.parseDouble(image.jvmOption("MaxRAMPercentage").orElseThrow()) / 100;
        long rocksDb = new ShaperConfig(settings(env(shaper))).getLong(ShaperConfig.STATE_ROCKSDB_MEMORY_BYTES_CONFIG);
        assertThat(rocksDb).as("RocksDB bounded").isPositive();
        assertThat((long) (limitBytes * heapShare) + rocksDb + JVM_AND_ROCKSDB_OVERHEAD).isLessThanOrEqualTo(limitBytes);
    }

    // --- the services, the budget, monitoring ------------------------------------------------------------------

    @Test
    void shouldSelectTheStatefulSetsPodsEverywhere() {
        Map<String, String> podLabels = statefulSet.getSpec().getTemplate().getMetadata().getLabels();
        assertThat(podLabels).containsAllEntriesOf(statefulSet.getSpec().getSelector().getMatchLabels());
        assertThat(podLabels).containsAllEntriesOf(disruptionBudget.getSpec().getSelector().getMatchLabels());
        assertThat(disruptionBudget.getSpec().getMaxUnavailable()).isEqualTo(new IntOrString(1));
        Container shaper = shaperContainer();
        for (Service service : services.values()) {
            assertThat(podLabels).as("%s selects the pods", service.getMetadata().getName())
                    .containsAllEntriesOf(service.getSpec().getSelector());
            for (ServicePort port : service.getSpec().getPorts()) {
                assertThat(containerPort(shaper, port.getTargetPort())).isNotNull();
            }
        }
        // The ServiceMonitor selects one of the Services, scrapes a port it has, on the shaper's metrics path
        Map<String, String> selector = YAML.convertValue(serviceMonitor.at("/spec/selector/matchLabels"),
                YAML.getTypeFactory().constructMapType(Map.class, String.class, String.class));
        List<Service> scraped = services.values().stream()
                .filter(s -> s.getMetadata().getLabels().entrySet().containsAll(selector.entrySet())).toList();
        assertThat(scraped).hasSize(1);
        for (JsonNode endpoint : serviceMonitor.at("/spec/endpoints")) {
            assertThat(scraped.get(0).getSpec().getPorts()).extracting(ServicePort::getName)
                    .contains(endpoint.path("port").asText());
            assertThat(endpoint.path("path").asText()).isEqualTo(OperationsServer.METRICS_PATH);
        }
    }

    @Test
    void shouldAlertOnlyOnMetricsAndLabelsTheShaperExposes(@TempDir Path stateDir) throws Exception {
        List<JsonNode> rules = new ArrayList<>();
        prometheusRule.at("/spec/groups").forEach(group -> group.path("rules").forEach(rules::add));
        assertThat(rules).extracting(rule -> rule.path("alert").asText()).contains("ShaperConsumerLagGrowing",
                "ShaperAdmissionOnLocalBuckets", "ShaperQueueGrowing", "ShaperRejections", "ShaperCapacityAtMinimum");
        String scrape = everyMetric(stateDir);
        for (JsonNode rule : rules) {
            String alert = rule.path("alert").asText();
            assertThat(rule.path("for").asText()).as("%s: for", alert).isNotEmpty();
            assertThat(rule.at("/labels/severity").asText()).as("%s: severity", alert).isIn("warning", "critical");
            String expr = rule.path("expr").asText();
            Matcher metric = Pattern.compile("\\b((?:shaper|kafka|jvm|process)_[a-z0-9_]+)(\\{[^}]*})?").matcher(expr);
            int found = 0;
            while (metric.find()) {
                found++;
                List<String> samples = samples(scrape, metric.group(1));
                assertThat(samples).as("%s: metric %s in the shaper's /metrics", alert, metric.group(1)).isNotEmpty();
                if (metric.group(2) != null) {
                    assertMatchersSelectSomething(alert, metric.group(1), metric.group(2), samples);
                }
            }
            assertThat(found).as("%s: metrics in %s", alert, expr).isPositive();
        }
    }

    // --- helpers ------------------------------------------------------------------------------------------

    /** Each matcher of a selector selects at least one sample of the metric (label names and values exist). */
    private static void assertMatchersSelectSomething(String alert, String metric, String selector,
                                                      List<String> samples) {
        Matcher m = Pattern.compile("(\\w+)\\s*(=~|!~|!=|=)\\s*\"((?:[^\"\\\\]|\\\\.)*)\"").matcher(selector);
        while (m.find()) {
            String label = m.group(1);
            String op = m.group(2);
            String value = m.group(3).replace("\\\\", "\\");
            boolean selects = samples.stream().map(sample -> labelValue(sample, label)).anyMatch(actual -> switch (op) {
                case "=" -> value.equals(actual);
                case "!=" -> !value.equals(actual);
                case "=~" -> actual != null && actual.matches(value);
                default -> actual == null || !actual.matches(value);
            });
            assertThat(selects).as("%s: %s%s selects no sample of %s", alert, metric, selector, samples).isTrue();
        }
    }

    private static String labelValue(String sample, String label) {
        Matcher m = Pattern.compile("[{,]" + Pattern.quote(label) + "=\"([^\"]*)\"").matcher(sample);
        return m.find() ? m.group(1) : null;
    }

    private static List<String> samples(String scrape, String metric) {
        return scrape.lines().filter(line -> line.startsWith(metric + "{") || line.startsWith(metric + " ")).toList();
    }

    /**
     * The shaper's meters as its {@code /metrics} answers: every meter of its own, the JVM's memory pools, and Kafka
     * Streams' (through a Kafka Streams instance built but never started: its clients exist and register theirs).
     */
    private static String everyMetric(Path stateDir) {
        try (AllMeters meters = new AllMeters()) {
            StreamsBuilder builder = new StreamsBuilder();
            builder.stream("in").to("out");
            Map<String, Object> props = Map.of(StreamsConfig.APPLICATION_ID_CONFIG, "shaper",
                    StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, "127.0.0.1:9",
                    StreamsConfig.STATE_DIR_CONFIG, stateDir.toString());
            KafkaStreams streams = new KafkaStreams(builder.build(), new StreamsConfig(props));
            try {
                meters.metrics().bindStreams(streams);
                return meters.scrape();
            } finally {
                streams.close(java.time.Duration.ofSeconds(10));
            }
        }
    }

    private static Container shaperContainer() {
        List<Container> containers = podSpec().getContainers();
        assertThat(containers).hasSize(1);
        return containers.get(0);
    }

    private static PodSpec podSpec() {
        return statefulSet.getSpec().getTemplate().getSpec();
    }

    /** The container's environment as the pod sees it: fieldRefs and $(VAR)s resolved, Secrets' values made up. */
    private static Map<String, String> env(Container container) {
        return values(container.getEnv());
    }

    private static Map<String, String> values(List<EnvVar> env) {
        Map<String, String> values = new LinkedHashMap<>();
        for (EnvVar variable : env) {
            String value;
            if (variable.getValueFrom() == null) {
                Matcher m = VARIABLE_REFERENCE.matcher(variable.getValue() == null ? "" : variable.getValue());
                value = m.replaceAll(r -> Matcher.quoteReplacement(values.getOrDefault(r.group(1), r.group())));
            } else if (variable.getValueFrom().getFieldRef() != null) {
                value = FIELDS.get(variable.getValueFrom().getFieldRef().getFieldPath());
                assertThat(value).as("fieldRef of %s", variable.getName()).isNotNull();
            } else {
                value = secretStandIn(variable.getName());
            }
            values.put(variable.getName(), value);
        }
        return values;
    }

    /** A value of the right form for a variable whose value is in a Secret. */
    private static String secretStandIn(String variable) {
        return switch (variable) {
            case "SHAPER_REDIS_URI" -> "rediss://shaper:secret@redis:6379";
            case "STREAMS_SASL_JAAS_CONFIG" -> "org.apache.kafka.common.security.scram.ScramLoginModule required"
                    + " username=\"shaper\" password=\"secret\";";
            default -> "secret";
        };
    }

    /** The settings the container starts with: the image's settings file and the pod's environment. */
    private static Map<String, String> settings(Map<String, String> env) throws Exception {
        return ImageConfigTest.startedWith(image, env);
    }

    private static String path(Probe probe) {
        assertThat(probe).isNotNull();
        assertThat(probe.getHttpGet()).isNotNull();
        return probe.getHttpGet().getPath();
    }

    /** The container port a probe or Service names, by name or number. */
    private static ContainerPort containerPort(Container container, IntOrString port) {
        return container.getPorts().stream()
                .filter(p -> port.getStrVal() != null ? port.getStrVal().equals(p.getName())
                        : port.getIntVal().equals(p.getContainerPort()))
                .findFirst().orElseThrow(() -> new AssertionError("no container port " + port));
    }

    /** The pod volume mounted where {@code file} lies. */
    private static Volume mountFor(Container container, String file) {
        VolumeMount mount = container.getVolumeMounts().stream()
                .filter(m -> file.startsWith(m.getMountPath().endsWith("/") ? m.getMountPath() : m.getMountPath() + "/"))
                .findFirst().orElseThrow(() -> new AssertionError("nothing mounted where " + file + " lies"));
        return podSpec().getVolumes().stream().filter(v -> v.getName().equals(mount.getName())).findFirst()
                .orElseThrow(() -> new AssertionError("no volume " + mount.getName()));
    }

    private static <T extends HasMetadata> T typed(JsonNode doc, Class<T> type) throws IOException {
        T resource = YAML.treeToValue(doc, type);
        assertThat(resource.getMetadata().getName()).as("%s name", type.getSimpleName()).isNotBlank();
        return resource;
    }

    /** A custom resource: parsed as a generic one (its kind, version and name), its spec read as it is. */
    private static JsonNode custom(JsonNode doc) throws IOException {
        GenericKubernetesResource resource = YAML.treeToValue(doc, GenericKubernetesResource.class);
        assertThat(resource.getMetadata().getName()).isNotBlank();
        assertThat(resource.getAdditionalProperties()).containsKey("spec");
        return doc;
    }

    /** The files a kustomization.yaml names. */
    private record Kustomization(List<String> resources, List<String> allFiles) {
    }

    private static Kustomization kustomization(Path dir) throws IOException {
        JsonNode k = YAML.readTree(dir.resolve("kustomization.yaml").toFile());
        List<String> resources = new ArrayList<>();
        k.path("resources").forEach(r -> resources.add(r.asText()));
        List<String> all = new ArrayList<>(resources);
        k.path("patches").forEach(p -> {
            if (p.has("path")) {
                all.add(p.path("path").asText());
            }
        });
        for (String generators : List.of("configMapGenerator", "secretGenerator")) {
            k.path(generators).forEach(g -> g.path("files").forEach(f -> {
                String file = f.asText();
                all.add(file.contains("=") ? file.substring(file.indexOf('=') + 1) : file);
            }));
        }
        return new Kustomization(resources, all);
    }
}
