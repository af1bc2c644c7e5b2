package dev.shaper.demo.cli;

import picocli.CommandLine.Option;

/** Where the Kafka cluster is: shared by the commands that talk to one. */
public final class KafkaOptions {

    // The environment variable is the shaper's own name for the setting (STREAMS_ + the Kafka key), so one
    // compose file or shell environment configures the shaper and these tools alike.
    @Option(names = "--bootstrap-servers", defaultValue = "${env:STREAMS_BOOTSTRAP_SERVERS:-localhost:9092}",
            description = "Kafka bootstrap servers, host:port[,host:port...] (default: ${DEFAULT-VALUE};"
                    + " environment: STREAMS_BOOTSTRAP_SERVERS)")
    String bootstrapServers;

    public String bootstrapServers() {
        return bootstrapServers;
    }
}
