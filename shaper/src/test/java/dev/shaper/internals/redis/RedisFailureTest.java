package dev.shaper.internals.redis;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.RedisCommandExecutionException;
import io.lettuce.core.RedisConnectionException;
import io.lettuce.core.RedisException;
import javax.net.ssl.SSLHandshakeException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A Redis Cluster in a failover or a migration answers errors that end on their own: each is a transient failure
 * ({@code unreachable}), never a refusal that only a configuration change would cure.
 */
class RedisFailureTest {

    private static RedisUnavailableException failed(String redisError) {
        // As the shaper's calls surface a Redis error: Lettuce's exception, wrapped
        RedisCommandExecutionException error = new RedisCommandExecutionException(redisError);
        return new RedisUnavailableException("Redis redis-cluster://127.0.0.1:7000: " + redisError, error);
    }

    @ParameterizedTest
    @ValueSource(strings = {"CLUSTERDOWN The cluster is down", "CLUSTERDOWN Hash slot not served",
            "TRYAGAIN Multiple keys request during rehashing of slot", "MASTERDOWN Link with MASTER is down",
            "LOADING Redis is loading the dataset in memory"})
    void aClusterChangingItsTopologyIsATransientFailure(String redisError) {
        RedisFailure failure = RedisFailure.of(failed(redisError));

        assertThat(failure.kind()).isEqualTo(RedisFailure.Kind.UNREACHABLE);
        assertThat(failure.isRefusal()).isFalse();
        assertThat(failure.detail()).isEqualTo(redisError);
        assertThat(failure.describe()).startsWith("is changing its cluster's topology (a failover or a slot"
                + " migration): " + redisError);
    }

    @ParameterizedTest
    @ValueSource(strings = {"MOVED 3999 127.0.0.1:7001", "ASK 3999 127.0.0.1:7001"})
    void aRedirectionIsTransientAndNamesTheClusterFormOfTheUri(String redisError) {
        RedisFailure failure = RedisFailure.of(failed(redisError));

        assertThat(failure.kind()).isEqualTo(RedisFailure.Kind.UNREACHABLE);
        assertThat(failure.describe()).contains(redisError).contains("redis-cluster://");
    }

    @ParameterizedTest
    @ValueSource(strings = {"WRONGPASS invalid username-password pair or user is disabled.",
            "NOPERM this user has no permissions to run the 'evalsha' command", "OOM command not allowed"})
    void aRefusalOnAClusterNodeIsStillARefusal(String redisError) {
        assertThat(RedisFailure.of(failed(redisError)).isRefusal()).isTrue();
    }

    @Test
    void aRefusalThatEveryNodeOfAClusterReportedIsStillARefusal() {
        // As the cluster client reports a topology no node gave: each node's failure suppressed in one exception
        RedisException tls = new RedisException("Cannot retrieve cluster partitions from [rediss://127.0.0.1:7000]");
        tls.addSuppressed(new RedisConnectionException("Unable to connect to 127.0.0.1:7000",
                new SSLHandshakeException("PKIX path building failed")));
        RedisException acl = new RedisException("Cannot retrieve cluster partitions from [redis://127.0.0.1:7000]");
        acl.addSuppressed(new RedisCommandExecutionException("NOPERM this user has no permissions to run the"
                + " 'cluster|nodes' command"));

        assertThat(RedisFailure.of(new RedisUnavailableException("Redis ...", tls)).kind())
                .isEqualTo(RedisFailure.Kind.TLS);
        assertThat(RedisFailure.of(new RedisUnavailableException("Redis ...", acl)).kind())
                .isEqualTo(RedisFailure.Kind.PERMISSION);
        assertThat(RedisFailure.of(new RedisException("Cannot retrieve cluster partitions")).kind())
                .isEqualTo(RedisFailure.Kind.UNREACHABLE);
    }

    @Test
    void aRefusalOfOneNodeDecidesOverAnotherNodesTransientError() {
        // One node still loads after a failover while another refuses the credentials: the refusal is what to fix
        RedisException both = new RedisException("Cannot retrieve cluster partitions");
        both.addSuppressed(new RedisCommandExecutionException("LOADING Redis is loading the dataset in memory"));
        both.addSuppressed(new RedisCommandExecutionException("WRONGPASS invalid username-password pair"));

        assertThat(RedisFailure.of(new RedisUnavailableException("Redis ...", both)).kind())
                .isEqualTo(RedisFailure.Kind.AUTHENTICATION);
    }
}
