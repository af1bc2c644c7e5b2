package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Redis names of an admission key's state: every name a script derives from the key's name (one per limit or
 * window) must fall in the key's one Redis Cluster slot, which its hash tag decides.
 */
class LimitScriptTest {

    private static byte[] bytes(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }

    private static String name(AdmissionAlgorithm algorithm, String admissionKey) {
        return new String(LimitScript.keyName(algorithm, bytes(admissionKey)), StandardCharsets.UTF_8);
    }

    @Test
    void anAdmissionKeyIsItsNamesHashTag() {
        assertThat(name(AdmissionAlgorithm.TOKEN_BUCKET, "tenant-42")).isEqualTo("shaper:tb:{tenant-42}");
        assertThat(name(AdmissionAlgorithm.FIXED_WINDOW, "a}b")).isEqualTo("shaper:win:{a}b}");
        assertThat(name(AdmissionAlgorithm.GCRA, "shadow:}x")).isEqualTo("shaper:gcra:{shadow:}x}");
    }

    @ParameterizedTest
    @ValueSource(strings = {"tenant-42", "a}b", "", "}", "}x", "~", "~}x", "{x}", "}{"})
    void everyNameAScriptDerivesIsInTheSlotOfTheKeysName(String admissionKey) {
        for (AdmissionAlgorithm algorithm : AdmissionAlgorithm.all()) {
            String name = name(algorithm, admissionKey);
            int slot = SlotHash.getSlot(bytes(name));
            // the suffixes of the window scripts (<window ms>:<index>) and of GCRA's further limits (:<n>)
            for (String derived : List.of(name + ":60000:29000000", name + ":2")) {
                assertThat(SlotHash.getSlot(bytes(derived))).as(derived).isEqualTo(slot);
            }
        }
    }

    @Test
    void aKeyThatWouldLeaveTheTagEmptyIsEscapedAndNoTwoKeysShareAName() {
        assertThat(name(AdmissionAlgorithm.FIXED_WINDOW, "")).isEqualTo("shaper:win:{~}");
        assertThat(name(AdmissionAlgorithm.FIXED_WINDOW, "}x")).isEqualTo("shaper:win:{~}x}");
        assertThat(name(AdmissionAlgorithm.FIXED_WINDOW, "~}x")).isEqualTo("shaper:win:{~~}x}");
        assertThat(name(AdmissionAlgorithm.FIXED_WINDOW, "~")).isEqualTo("shaper:win:{~~}");

        Set<String> names = new HashSet<>();
        for (String key : List.of("", "~", "~~", "}", "~}", "}x", "~}x", "~~}x", "x", "x}")) {
            assertThat(names.add(name(AdmissionAlgorithm.TOKEN_BUCKET, key))).as(key).isTrue();
        }
    }
}
