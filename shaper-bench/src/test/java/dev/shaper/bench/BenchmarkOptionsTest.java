package dev.shaper.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Properties;
import org.junit.jupiter.api.Test;

class BenchmarkOptionsTest {

    @Test
    void appsRunInJvmsOfTheirOwnByDefaultAndInheritTheLoggingConfiguration() {
        Properties system = new Properties();
        system.setProperty("logback.configurationFile", "/bench/logback.xml");
        BenchmarkOptions options = BenchmarkOptions.parse(new String[0], system);
        assertThat(options.appJvm()).isEqualTo("worker");
        assertThat(options.appJvmOptions()).containsExactly("-Xms2g", "-Xmx2g", "-XX:+AlwaysPreTouch",
                "-Dlogback.configurationFile=/bench/logback.xml");
        assertThat(options.warmupRecords()).isEqualTo(1_000_000);
    }

    @Test
    void givenAppJvmOptionsReplaceTheDefaultsAndKeepTheirOwnLoggingConfiguration() {
        Properties system = new Properties();
        system.setProperty("logback.configurationFile", "/bench/logback.xml");
        BenchmarkOptions options = BenchmarkOptions.parse(new String[] {"--app.jvm.opts= -Xmx1g  -Dlogback"
                + ".configurationFile=/mine.xml ", "--app.jvm=shared"}, system);
        assertThat(options.appJvm()).isEqualTo("shared");
        assertThat(options.appJvmOptions()).containsExactly("-Xmx1g", "-Dlogback.configurationFile=/mine.xml");
    }

    @Test
    void anUnknownAppJvmModeIsRefusedWithTheChoices() {
        assertThatThrownBy(() -> BenchmarkOptions.parse(new String[] {"--app.jvm=forked"}, new Properties()))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("app.jvm must be worker or shared, got \"forked\"");
    }

    @Test
    void theNaiveQueueIsAnAppWithAStoreButNoShaping() {
        BenchApp naive = BenchApp.byLabel("naive-queue");
        assertThat(naive.hasStore()).isTrue();
        assertThat(naive.shapes()).isFalse();
        assertThat(BenchApp.byLabel("shaper").hasStore()).isTrue();
        assertThat(BenchApp.byLabel("pass-through").hasStore()).isFalse();
    }
}
