package dev.shaper.internals.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class KeyPathTest {

    @ParameterizedTest
    @CsvSource({"user-42,user-42", "user%2F42,user/42", "a+b,a+b", "caf%C3%A9,café", "%25,%"})
    void shouldPercentDecodeThePathSegmentToTheKeyBytes(String raw, String key) {
        assertThat(KeyPath.decode(raw)).isEqualTo(key.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void shouldDecodeBinaryKeys() {
        assertThat(KeyPath.decode("%00%FF")).containsExactly(0, 0xFF);
    }

    @Test
    void shouldReadTheEmptySegmentAsTheEmptyKey() {
        // A record with an empty (not null) key is shaped like any other, so it must be queryable too.
        assertThat(KeyPath.decode("")).isEmpty();
    }

    @ParameterizedTest
    @CsvSource({"user-42,user-42", "user/42,user%2F42", "a{b|c},a%7Bb%7Cc%7D", "café,caf%C3%A9", "'',''"})
    void shouldEncodeAKeyAsASegmentThatAUriAccepts(String key, String encoded) {
        byte[] bytes = key.getBytes(StandardCharsets.UTF_8);
        assertThat(KeyPath.encode(bytes)).isEqualTo(encoded);
        assertThat(java.net.URI.create("http://localhost/buckets/" + KeyPath.encode(bytes)).getRawPath())
                .isEqualTo("/buckets/" + encoded);
        assertThat(KeyPath.decode(KeyPath.encode(bytes))).isEqualTo(bytes);
    }

    @ParameterizedTest
    @CsvSource({"bad%zz, percent-encoding at position 3", "bad%2, percent-encoding at position 3",
            "'%', percent-encoding at position 0", "100%, percent-encoding at position 3", "a/b, '/'"})
    void shouldRefuseMalformedKeysWithAMessage(String raw, String message) {
        assertThatThrownBy(() -> KeyPath.decode(raw)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(message);
    }
}
