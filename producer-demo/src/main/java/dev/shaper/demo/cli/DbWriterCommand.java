package dev.shaper.demo.cli;

import dev.shaper.demo.db.BatchObserver;
import dev.shaper.demo.db.BatchWriter;
import dev.shaper.demo.db.DbSlowdown;
import dev.shaper.demo.db.DbWriter;
import dev.shaper.demo.db.JdbcTarget;
import dev.shaper.demo.db.ShapedRowsTable;
import dev.shaper.demo.traffic.Ticker;
import dev.shaper.cli.BrokerCheck;
import dev.shaper.feedback.FeedbackReporter;
import java.io.PrintWriter;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.CommonClientConfigs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code db-writer}: writes the shaped topic into a database table, as the service behind the shaper would. */
@Command(name = "db-writer", mixinStandardHelpOptions = true,
        description = "Consume the shaped topic (read_committed) and insert one row per record in JDBC batches"
                + " (PostgreSQL or the embedded H2). Offsets are committed after the database commit; inserts"
                + " skip ids already stored, so a replay adds no duplicate rows.")
public final class DbWriterCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Mixin
    KafkaOptions kafka;

    @Mixin
    FeedbackOptions feedback;

    @Option(names = "--topic", defaultValue = "${env:SHAPER_OUTPUT_TOPIC:-shaper-shaped}",
            description = "topic to consume (default: ${DEFAULT-VALUE}; environment: SHAPER_OUTPUT_TOPIC, as for"
                    + " the shaper)")
    String topic;

    @Option(names = "--group", defaultValue = "shaper-db-writer",
            description = "consumer group; its committed offsets are where a restart resumes (default: ${DEFAULT-VALUE})")
    String group;

    @Option(names = "--jdbc-url", defaultValue = "jdbc:h2:./shaper-demo-db",
            description = "jdbc:postgresql://host:port/database, or jdbc:h2:... for the embedded database"
                    + " (default: ${DEFAULT-VALUE}, a file database in the current directory)")
    String jdbcUrl;

    @Option(names = "--db-user", description = "database user")
    String user;

    @Option(names = "--db-password", description = "database password (or set PGPASSWORD for PostgreSQL)")
    String password;

    @Option(names = "--table", defaultValue = ShapedRowsTable.DEFAULT_NAME,
            description = "table to write, created if missing (default: ${DEFAULT-VALUE})")
    String table;

    @Option(names = "--max-batch", defaultValue = "500", converter = OptionConverters.PositiveInt.class,
            description = "most records per poll, hence per database batch (default: ${DEFAULT-VALUE})")
    int maxBatch;

    @Option(names = "--duration", converter = OptionConverters.PositiveDuration.class,
            description = "stop after this long (default: run until Ctrl-C)")
    Duration duration;

    @Option(names = "--db-slowdown", paramLabel = "START+LENGTH:DELAY",
            converter = OptionConverters.DbSlowdownSpec.class,
            description = "fault injection: from START after the writer starts, for LENGTH, each database batch"
                    + " takes DELAY longer (its transaction held open before the commit), e.g. 10s+10s:50ms"
                    + " (default: none)")
    DbSlowdown dbSlowdown;

    @Override
    public Integer call() throws Exception {
        JdbcTarget target = Checks.option(spec, "--jdbc-url", () -> new JdbcTarget(jdbcUrl, user, password));
        ShapedRowsTable rows = Checks.option(spec, "--table", () -> new ShapedRowsTable(table, target.dialect()));
        feedback.check();
        PrintWriter out = spec.commandLine().getOut();
        FeedbackReporter reporter = feedback.startReporter(kafka.bootstrapServers());
        try {
            if (reporter != null) {
                out.printf("Reporting the writes to %s every %d ms as writer %s%n", feedback.topic(),
                        feedback.interval().toMillis(), feedback.writerId());
            }
            write(target, rows, reporter == null ? BatchObserver.NONE : reporter::recordWrite, out);
        } finally {
            if (reporter != null) {
                reporter.close(); // after the writer: its last window holds the last batches
            }
        }
        return 0;
    }

    private void write(JdbcTarget target, ShapedRowsTable rows, BatchObserver observer, PrintWriter out) {
        BrokerCheck.requireAnswer(Map.of(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrapServers()),
                BrokerCheck.WAIT);
        DbWriter writer;
        try {
            BatchWriter batches = new BatchWriter(target.connect(), rows, Clock.systemUTC(), Ticker.SYSTEM,
                    dbSlowdown, observer);
            writer = new DbWriter(kafka.bootstrapServers(), topic, group, maxBatch, batches);
        } catch (SQLException e) {
            throw new CommandFailure("cannot open the table " + table + " in " + target + ": " + e.getMessage());
        }
        out.printf("Writing %s to table %s in %s (group %s)%n", topic, table, target, group);
        if (dbSlowdown != null) {
            out.println("Injecting a slow database: " + dbSlowdown.describe());
        }
        out.flush();
        long start = System.nanoTime();
        ScheduledExecutorService progress = Executors.newSingleThreadScheduledExecutor();
        long[] last = {0};
        progress.scheduleAtFixedRate(() -> {
            long now = writer.stats().rowsInserted();
            out.printf(Locale.ROOT, "%6.0fs  %6d rows/s  %8d rows%n", (System.nanoTime() - start) / 1e9, now - last[0],
                    now);
            out.flush();
            last[0] = now;
        }, 1, 1, TimeUnit.SECONDS);
        if (duration != null) {
            progress.schedule(writer::stop, duration.toMillis(), TimeUnit.MILLISECONDS);
        }
        try (StopOnSignal signal = new StopOnSignal("db-writer", writer::stop)) {
            try {
                writer.run();
            } catch (SQLException e) {
                throw new CommandFailure("writing to " + target + " failed: " + e.getMessage()
                        + "; the batch's offsets are not committed, a restart writes it again");
            } finally {
                progress.shutdownNow();
                writer.close();
            }
        }
        out.println(writer.stats().summary((System.nanoTime() - start) / 1e9));
    }
}
