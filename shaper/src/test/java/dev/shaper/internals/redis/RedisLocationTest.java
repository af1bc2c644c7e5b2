package dev.shaper.internals.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.lettuce.core.RedisCredentials;
import io.lettuce.core.RedisURI;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** How {@code shaper.redis.uri} is read: one server, or a Redis Cluster's seed nodes. */
class RedisLocationTest {

    private static RedisCredentials credentials(RedisURI node) {
        return node.getCredentialsProvider().resolveCredentials().block();
    }

    @Test
    void aRedisUriNamesOneServer() {
        RedisLocation location = RedisLocation.parse(" rediss://app:s3cret@redis.internal:6380/2 ");

        assertThat(location.cluster()).isFalse();
        assertThat(location.nodes()).singleElement().satisfies(node -> {
            assertThat(node.getHost()).isEqualTo("redis.internal");
            assertThat(node.getPort()).isEqualTo(6380);
            assertThat(node.getDatabase()).isEqualTo(2);
            assertThat(node.isSsl()).isTrue();
            assertThat(credentials(node).getUsername()).isEqualTo("app");
            assertThat(new String(credentials(node).getPassword())).isEqualTo("s3cret");
        });
        assertThat(location.description()).isEqualTo("rediss://redis.internal:6380/2");
    }

    @Test
    void aClusterUriNamesSeedNodesEachWithTheCredentialsAndTls() {
        RedisLocation location = RedisLocation.parse("rediss-cluster://app:s3cret@10.0.0.1:7000, 10.0.0.2:7001,"
                + "[::1]:7002,redis-c");

        assertThat(location.cluster()).isTrue();
        assertThat(location.nodes()).extracting(RedisURI::getHost)
                .containsExactly("10.0.0.1", "10.0.0.2", "[::1]", "redis-c");
        assertThat(location.nodes()).extracting(RedisURI::getPort).containsExactly(7000, 7001, 7002, 6379);
        assertThat(location.nodes()).allSatisfy(node -> {
            assertThat(node.isSsl()).isTrue();
            assertThat(credentials(node).getUsername()).isEqualTo("app");
            assertThat(new String(credentials(node).getPassword())).isEqualTo("s3cret");
        });
        assertThat(location.description())
                .isEqualTo("rediss-cluster://10.0.0.1:7000,10.0.0.2:7001,[::1]:7002,redis-c:6379");
        assertThat(RedisLocation.parse("redis-cluster://h:7000").nodes()).singleElement()
                .satisfies(node -> assertThat(node.isSsl()).isFalse());
    }

    @ParameterizedTest
    @ValueSource(strings = {"redis-cluster://u:s3cret@h1:7000/0", "redis-cluster://u:s3cret@h1:7000,h2:7001?timeout=1s",
            "redis-cluster://u:s3cret@h1:7000,,h2:7001", "redis-cluster://u:s3cret@", "redis-cluster://u:s3cret@h1:x",
            "rediss-cluster://u:s3cret@h1:7000,:7001", "redis-cluster://u:s3cret@h1:70000"})
    void aMalformedClusterUriIsRefusedNamingTheFormWithoutEchoingIt(String uri) {
        assertThatThrownBy(() -> RedisLocation.parse(uri))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RedisLocation.CLUSTER_FORM)
                .hasMessageNotContaining("s3cret")
                .hasMessageNotContaining("h1");
    }

    @Test
    void anotherSchemeIsRefusedNamingBothForms() {
        assertThatThrownBy(() -> RedisLocation.parse("http://u:s3cret@h:1"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(RedisLocation.SERVER_FORM)
                .hasMessageContaining(RedisLocation.CLUSTER_FORM)
                .hasMessageNotContaining("s3cret");
    }
}
