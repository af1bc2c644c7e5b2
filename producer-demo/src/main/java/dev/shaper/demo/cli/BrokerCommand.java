package dev.shaper.demo.cli;

import dev.shaper.demo.embedded.LocalBroker;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code broker}: a local single-node Kafka broker for trying the shaper without a Kafka install, the one the demo
 * embeds. Its data lives in a temporary directory deleted when it stops; topics are not created on first use (the
 * shaper's {@code topics create} makes its own).
 */
@Command(name = "broker", mixinStandardHelpOptions = true,
        description = "Start a local single-node Kafka broker (KRaft, in this JVM) for trying the shaper, and run it"
                + " until Ctrl-C. Its data lives in a temporary directory deleted when it stops; topics are not"
                + " created on first use. Not for production: one broker, replication factor 1.")
public final class BrokerCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--port", defaultValue = "9092",
            description = "localhost port of the clients' listener, the bootstrap address (default: ${DEFAULT-VALUE})")
    int port;

    @Override
    public Integer call() throws Exception {
        if (port < 1 || port > 65535) {
            throw new ParameterException(spec.commandLine(), "Invalid value for option '--port': " + port
                    + "; expected a port from 1 to 65535");
        }
        requireFree(port);
        Path directory = Files.createTempDirectory("shaper-broker-");
        CountDownLatch stopped = new CountDownLatch(1);
        // The signal is closed last: Ctrl-C lets the JVM exit only once the broker stopped and its data is deleted.
        try (StopOnSignal signal = new StopOnSignal("broker", stopped::countDown)) {
            try (LocalBroker kafka = LocalBroker.start(directory.resolve("kafka"), port)) {
                PrintWriter out = spec.commandLine().getOut();
                out.println("Kafka broker ready at " + kafka.bootstrapServers() + " (data in " + directory
                        + ", deleted on stop); Ctrl-C stops it");
                out.flush();
                stopped.await();
            } finally {
                deleteQuietly(directory);
            }
        }
        return 0;
    }

    /** A port in use would fail deep in the broker's start with a bind error; said at once instead. */
    private static void requireFree(int port) {
        try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            probe.setReuseAddress(true);
        } catch (IOException e) {
            throw new CommandFailure("port " + port + " of localhost is in use (" + e.getMessage() + "): a broker"
                    + " may already run there; stop it or choose another --port");
        }
    }

    private static void deleteQuietly(Path directory) {
        try (var paths = Files.walk(directory)) {
            paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        } catch (IOException e) {
            // Left for the temporary directory's own cleanup.
        }
    }
}
