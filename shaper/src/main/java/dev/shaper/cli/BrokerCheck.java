package dev.shaper.cli;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.common.KafkaException;

/**
 * Asks the cluster for its brokers once, before a command talks to Kafka, so that a wrong address or a cluster that
 * is down fails in seconds with one line naming the address, instead of a client's retries and a timeout that names
 * an internal call.
 */
public final class BrokerCheck {

    /** How long a command waits for a broker to answer before it gives up. */
    public static final Duration WAIT = Duration.ofSeconds(10);

    private BrokerCheck() {
    }

    /**
     * Returns once a broker at the settings' {@code bootstrap.servers} has answered.
     *
     * @param clientSettings Kafka client settings: the bootstrap servers and any security settings
     * @throws NoBrokerAnswers when none answers within {@code wait} (or the address does not resolve)
     * @throws KafkaException  when a broker answers with an error (authentication, authorisation)
     */
    public static void requireAnswer(Map<String, Object> clientSettings, Duration wait) {
        String address = String.valueOf(clientSettings.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG));
        int waitMs = (int) Math.min(Integer.MAX_VALUE, wait.toMillis());
        Map<String, Object> settings = new HashMap<>(clientSettings);
        settings.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, waitMs);
        settings.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, waitMs);
        settings.putIfAbsent(AdminClientConfig.CLIENT_ID_CONFIG, "shaper-broker-check");
        Admin admin;
        try {
            admin = Admin.create(settings);
        } catch (KafkaException e) {
            // The client refuses an address it cannot resolve before it tries anything; other settings it cannot
            // use (a truststore, a JAAS line) are said as they are.
            if (rootMessage(e) != null && rootMessage(e).contains("resolvable bootstrap urls")) {
                throw new NoBrokerAnswers(address, "(the address does not resolve)");
            }
            throw new KafkaException("cannot make a client for " + address + ": " + rootMessage(e), e);
        }
        try {
            admin.describeCluster(new DescribeClusterOptions().timeoutMs(waitMs)).nodes()
                    .get(waitMs + 1_000L, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.TimeoutException) {
                throw new NoBrokerAnswers(address, "within " + wait.toSeconds() + " s");
            }
            throw e.getCause() instanceof KafkaException kafka ? kafka : new KafkaException(e.getCause());
        } catch (TimeoutException e) {
            throw new NoBrokerAnswers(address, "within " + wait.toSeconds() + " s");
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaException("interrupted while waiting for a broker at " + address);
        } finally {
            admin.close(Duration.ZERO);
        }
    }

    private static String rootMessage(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) {
            root = root.getCause();
        }
        return root.getMessage();
    }

    /** No broker answered at the bootstrap address; the message names it and what to check. */
    public static final class NoBrokerAnswers extends KafkaException {
        private static final long serialVersionUID = 1L;

        NoBrokerAnswers(String address, String how) {
            super("no broker answers at " + address + " " + how + "; check the bootstrap address and that the"
                    + " brokers run");
        }
    }
}
