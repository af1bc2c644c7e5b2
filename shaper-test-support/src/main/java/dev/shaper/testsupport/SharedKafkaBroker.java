package dev.shaper.testsupport;

import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One {@link KafkaBroker} for all tests of a class, started before the first and closed after the last:
 * {@code @RegisterExtension static final SharedKafkaBroker broker = new SharedKafkaBroker();}
 */
public final class SharedKafkaBroker implements BeforeAllCallback, AfterAllCallback {

    private KafkaBroker broker;

    @Override
    public void beforeAll(ExtensionContext context) {
        broker = KafkaBroker.start();
    }

    @Override
    public void afterAll(ExtensionContext context) throws Exception {
        if (broker != null) {
            broker.close();
            broker = null;
        }
    }

    private KafkaBroker broker() {
        if (broker == null) {
            throw new IllegalStateException("the broker runs only between beforeAll and afterAll");
        }
        return broker;
    }

    public String bootstrapServers() {
        return broker().bootstrapServers();
    }

    public Admin admin() {
        return broker().admin();
    }

    /** See {@link KafkaBroker#createTopics(int, String...)}. */
    public void createTopics(int partitions, String... names) {
        broker().createTopics(partitions, names);
    }

    /** See {@link KafkaBroker#createTopics(int, Map, String...)}. */
    public void createTopics(int partitions, Map<String, String> configs, String... names) {
        broker().createTopics(partitions, configs, names);
    }
}
