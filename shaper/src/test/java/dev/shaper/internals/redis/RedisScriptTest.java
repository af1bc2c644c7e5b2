package dev.shaper.internals.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** How {@link RedisScript#load} reads a script: its fragments filled in, and the SHA-1 of what Redis runs. */
class RedisScriptTest {

    private static String resource(String name) throws IOException {
        try (InputStream in = RedisScriptTest.class.getClassLoader().getResourceAsStream(name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @ParameterizedTest(name = "{0} with {1}")
    @CsvSource(delimiter = '|', value = {
            "fixed-window   | admission-common limit-lists window-counters",
            "sliding-window | admission-common limit-lists window-counters",
            "gcra           | admission-common",
            "token-bucket   | limit-lists",
    })
    void aScriptRunsWithEachSharedFragmentInPlaceOfItsIncludeLine(String name, String fragments) throws Exception {
        String file = resource("dev/shaper/" + name + ".lua");
        String expected = file;
        for (String fragment : fragments.split(" ")) {
            String line = "-- #include " + fragment + ".lua\n";
            assertThat(file).containsOnlyOnce("\n" + line);
            expected = expected.replace(line, resource("dev/shaper/" + fragment + ".lua"));
        }

        String source = RedisScript.load("dev/shaper/" + name + ".lua").source();

        assertThat(source).isEqualTo(expected);
        assertThat(source).doesNotContain("\n-- #include ");
    }

    @ParameterizedTest
    @ValueSource(strings = {"capacity-lease", "capacity-decision"})
    void aScriptWithoutIncludeLinesRunsAsItsFileStands(String name) throws Exception {
        assertThat(RedisScript.load("dev/shaper/" + name + ".lua").source())
                .isEqualTo(resource("dev/shaper/" + name + ".lua"));
    }

    @Test
    void theShaIsTheSha1OfTheSourceRedisRuns() throws Exception {
        RedisScript script = RedisScript.load("dev/shaper/sliding-window.lua");
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                .digest(script.source().getBytes(StandardCharsets.UTF_8)));
        assertThat(script.sha()).isEqualTo(sha);
    }

    @Test
    void aMissingScriptFailsClearly() {
        assertThatThrownBy(() -> RedisScript.load("dev/shaper/no-such-script.lua"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("dev/shaper/no-such-script.lua is missing from the class path");
    }
}
