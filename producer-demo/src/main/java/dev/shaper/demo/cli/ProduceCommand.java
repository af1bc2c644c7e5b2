package dev.shaper.demo.cli;

import dev.shaper.demo.traffic.KafkaRecordSink;
import dev.shaper.demo.traffic.Ticker;
import dev.shaper.demo.traffic.TrafficGenerator;
import dev.shaper.demo.traffic.TrafficLimit;
import dev.shaper.demo.traffic.TrafficPattern;
import dev.shaper.demo.traffic.ZipfKeys;
import dev.shaper.cli.BrokerCheck;
import java.io.PrintWriter;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import java.util.Locale;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code produce}: sends generated traffic to the shaper's input topic. */
@Command(name = "produce", mixinStandardHelpOptions = true,
        description = "Send records shaped like real traffic (steady, bursts, ramp, on-off) to a topic. Each"
                + " record's value starts with its id <key>:<seq>|<run>| for accounting.")
public final class ProduceCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    KafkaOptions kafka;

    @Mixin
    TrafficOptions traffic;

    @Option(names = "--topic", defaultValue = "${env:SHAPER_INPUT_TOPIC:-shaper-input}",
            description = "topic to produce to (default: ${DEFAULT-VALUE}; environment: SHAPER_INPUT_TOPIC, as"
                    + " for the shaper)")
    String topic;

    @Option(names = "--run-id", description = "id of this run in every record (default: random, 8 characters)")
    String runId;

    @Override
    public Integer call() {
        TrafficPattern pattern = traffic.pattern();
        TrafficLimit limit = traffic.limit();
        String run = runId != null ? RunIds.check(spec, runId) : UUID.randomUUID().toString().substring(0, 8);
        ZipfKeys keys = new ZipfKeys(traffic.keys, traffic.zipf,
                traffic.seed == null ? new Random() : new Random(traffic.seed));
        TrafficGenerator generator = new TrafficGenerator(run, pattern, keys, traffic.recordSize, limit,
                Ticker.SYSTEM);
        BrokerCheck.requireAnswer(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                BrokerCheck.WAIT);
        PrintWriter out = spec.commandLine().getOut();
        out.printf("Producing %s over %d keys (Zipf %s) to %s for %s; run id %s%n", pattern.describe(),
                traffic.keys, traffic.zipf, topic, limit, run);
        out.flush();
        long start = System.nanoTime();
        long sent;
        // The signal is closed last: a Ctrl-C lets the JVM exit only after the producer flushed and closed.
        try (StopOnSignal signal = new StopOnSignal("produce", generator::stop);
             KafkaRecordSink sink = new KafkaRecordSink(kafka.bootstrapServers(), topic)) {
            sent = generator.run(sink);
            sink.flush();
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        out.printf(Locale.ROOT, "Sent %d records in %.1f s (%.1f/s), all acknowledged; run id %s%n", sent, seconds,
                sent / seconds, run);
        return 0;
    }
}
