package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.demo.ProducerDemo;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The broker {@code producer-demo broker} runs: clients reach it on the port asked for, and a taken port is said. */
@Timeout(120)
class LocalBrokerIT {

    @TempDir
    Path directory;

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return socket.getLocalPort();
        }
    }

    @Test
    void shouldServeClientsOnThePortAskedFor() throws Exception {
        int port = freePort();
        try (LocalBroker broker = LocalBroker.start(directory, port)) {
            String bootstrap = "localhost:" + port;
            assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
            try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
                admin.createTopics(List.of(new NewTopic("tried", 2, (short) 1))).all().get(30, TimeUnit.SECONDS);
            }
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of("bootstrap.servers",
                    bootstrap), new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>("tried", 0, "k", "hello")).get(30, TimeUnit.SECONDS);
            }
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of("bootstrap.servers",
                    bootstrap), new StringDeserializer(), new StringDeserializer())) {
                consumer.assign(List.of(new TopicPartition("tried", 0)));
                consumer.seekToBeginning(List.of(new TopicPartition("tried", 0)));
                ConsumerRecords<String, String> records = ConsumerRecords.empty();
                long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
                while (records.isEmpty() && System.nanoTime() < deadline) {
                    records = consumer.poll(Duration.ofMillis(500));
                }
                assertThat(records).extracting(r -> r.value()).containsExactly("hello");
            }
        }
    }

    @Test
    void shouldSayInOneLineWithinTenSecondsThatNoBrokerAnswersToTheCommandsThatNeedOne() throws Exception {
        String address = "127.0.0.1:" + freePort();
        List<List<String>> commands = List.of(
                List.of("produce", "--bootstrap-servers", address, "--count", "1"),
                List.of("db-writer", "--bootstrap-servers", address, "--jdbc-url",
                        "jdbc:h2:" + directory.resolve("db"), "--duration", "5s"));

        List<CompletableFuture<String>> answers = commands.stream().map(args -> CompletableFuture.supplyAsync(() -> {
            StringWriter err = new StringWriter();
            CommandLine cli = ProducerDemo.commandLine();
            cli.setErr(new PrintWriter(err, true));
            cli.setOut(new PrintWriter(new StringWriter(), true));
            long start = System.nanoTime();
            int exitCode = cli.execute(args.toArray(String[]::new));
            return exitCode + " " + TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start) + " " + err;
        })).toList();

        for (CompletableFuture<String> answer : answers) {
            String[] parts = answer.get(60, TimeUnit.SECONDS).split(" ", 3);
            assertThat(Integer.parseInt(parts[0])).as(parts[2]).isEqualTo(ProducerDemo.EXIT_NO_BROKER);
            assertThat(Long.parseLong(parts[1])).isLessThan(20_000);
            assertThat(parts[2].lines().toList()).singleElement().asString()
                    .contains("no broker answers at " + address + " within 10 s");
        }
    }

    @Test
    void shouldSayAtOnceThatThePortIsTaken() throws Exception {
        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            StringWriter err = new StringWriter();
            CommandLine cli = ProducerDemo.commandLine();
            cli.setErr(new PrintWriter(err, true));

            int exitCode = cli.execute("broker", "--port", String.valueOf(taken.getLocalPort()));

            assertThat(exitCode).isEqualTo(1);
            assertThat(err.toString()).contains("port " + taken.getLocalPort() + " of localhost is in use")
                    .contains("--port");
        }
    }
}
