package dev.shaper.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.ShaperConfig;
import dev.shaper.internals.config.SettingsLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.streams.StreamsConfig;
import org.junit.jupiter.api.Test;

/**
 * The container images as Jib builds them (shaper/pom.xml, producer-demo/pom.xml, the base image in the parent
 * pom), read from the poms: not root, a pinned JRE 17, half the container's memory for the heap, ZGC, and none of
 * the repository's examples applied unless asked for.
 */
class ImageConfigTest {

    private static final Path SHAPER = Path.of(".");
    private static final Path PRODUCER_DEMO = Path.of("..", "producer-demo");
    /** A release tag of a JRE 17 (17.0.20_8-jre-noble, not 17-jre), and the digest of what it named. */
    private static final Pattern PINNED_JRE_17 =
            Pattern.compile("[a-z0-9./-]+:(17\\.\\d+\\.\\d+[_+.]\\d+-jre[a-z0-9.-]*)@sha256:[0-9a-f]{64}");

    @Test
    void shouldRunAsAUserOtherThanRootInEveryImage() throws Exception {
        for (Path module : List.of(SHAPER, PRODUCER_DEMO)) {
            String user = JibImage.of(module).user();
            assertThat(user).as("%s: container user", module).isNotNull().matches("\\d+(:\\d+)?");
            for (String id : user.split(":")) {
                assertThat(Integer.parseInt(id)).as("%s: uid and gid of %s", module, user).isPositive();
            }
        }
    }

    @Test
    void shouldBuildOnAJre17PinnedByReleaseTagAndDigest() throws Exception {
        for (Path module : List.of(SHAPER, PRODUCER_DEMO)) {
            String base = JibImage.of(module).baseImage();
            assertThat(base).as("%s: base image", module).isNotNull();
            Matcher m = PINNED_JRE_17.matcher(base);
            assertThat(m.matches()).as("%s: base image %s pinned to a JRE 17 release tag and a digest", module, base)
                    .isTrue();
        }
    }

    @Test
    void shouldGiveTheHeapAboutHalfTheContainerAndRunZgc() throws Exception {
        JibImage image = JibImage.of(SHAPER);
        // Half the memory for the heap, the rest for RocksDB's shared cache and the JVM's own (docs/kubernetes.md)
        double percentage = Double.parseDouble(image.jvmOption("MaxRAMPercentage").orElseThrow(
                () -> new AssertionError("no -XX:MaxRAMPercentage: the JVM's default takes a quarter")));
        assertThat(percentage).isBetween(40.0, 60.0);
        assertThat(image.jvmFlags()).noneMatch(flag -> flag.startsWith("-Xmx") || flag.startsWith("-XX:MaxRAM="));
        // The collector the rate figures were measured with, and no other
        assertThat(image.jvmFlags()).contains("-XX:+UseZGC", "-XX:+ExitOnOutOfMemoryError");
        assertThat(image.jvmFlags()).filteredOn(flag -> flag.matches("-XX:\\+Use\\w*GC")).containsExactly("-XX:+UseZGC");
    }

    @Test
    void shouldApplyOnlyTheShapersDocumentedDefaults() throws Exception {
        JibImage image = JibImage.of(SHAPER);
        // No shaper setting in the image's environment (it set SHAPER_RULES_FILE to the examples' rules)
        assertThat(image.environment().keySet()).noneMatch(name -> name.startsWith(SettingsLoader.SHAPER_ENV_PREFIX));
        // Nor in its settings file, which holds where the state goes and nothing else of the shaper's
        Properties file = new Properties();
        try (var reader = Files.newBufferedReader(image.settingsFile())) {
            file.load(reader);
        }
        assertThat(file.stringPropertyNames()).noneMatch(key -> key.startsWith("shaper."))
                .containsExactly(StreamsConfig.STATE_DIR_CONFIG);
        // So the image starts on the defaults: no rules file, no total rate, ...
        ShaperConfig config = new ShaperConfig(startedWith(image, Map.of()));
        Map<String, Object> defaults = ShaperConfig.configDef().defaultValues();
        assertThat(config.totalRate()).isEqualTo(defaults.get(ShaperConfig.SHAPING_TOTAL_RATE_CONFIG));
        assertThat(config.getString(ShaperConfig.RULES_FILE_CONFIG)).isEmpty();
        // And the examples are in the image, apart, for whoever asks for them
        assertThat(image.extraDirectories()).contains(new JibImage.ExtraDirectory("config", "/app/examples"));
        assertThat(image.localFile("/app/examples/rules.yaml").orElseThrow()).isRegularFile();
        assertThat(image.settingsFile().getParent()).isNotEqualTo(SHAPER.resolve("config"));
    }

    @Test
    void shouldLetTheImagesUserWriteItsStateDirectory() throws Exception {
        JibImage image = JibImage.of(SHAPER);
        String stateDir = stateDir(image, Map.of());
        // A volume, present in the image (Jib writes it as root's) and writable by any user
        assertThat(image.volumes()).contains(stateDir);
        assertThat(image.localFile(stateDir).orElseThrow()).isDirectory();
        String mode = image.permissions().get(stateDir);
        assertThat(mode).as("mode of %s", stateDir).isNotNull();
        assertThat(Integer.parseInt(mode, 8) & 02).as("others may write %s (mode %s)", stateDir, mode).isNotZero();
        // And the image's port is the shaper's HTTP port
        assertThat(image.ports()).containsExactly(new ShaperConfig(startedWith(image, Map.of())).httpPort());
    }

    /**
     * The settings as the image starts: its settings file, overridden by {@code environment}, with an application
     * id and brokers when the environment names none (which the image leaves to its user).
     */
    static Map<String, String> startedWith(JibImage image, Map<String, String> environment) throws Exception {
        Map<String, String> env = new java.util.HashMap<>(Map.of("STREAMS_APPLICATION_ID", "shaper",
                "STREAMS_BOOTSTRAP_SERVERS", "kafka:9092"));
        env.putAll(image.environment());
        env.putAll(environment);
        return SettingsLoader.load(image.settingsFile(), env);
    }

    /** The image's state.dir, as the shaper hands it to Kafka Streams. */
    static String stateDir(JibImage image, Map<String, String> environment) throws Exception {
        return new ShaperConfig(startedWith(image, environment)).streamsProperties()
                .getProperty(StreamsConfig.STATE_DIR_CONFIG);
    }
}
