package dev.shaper.testsupport;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.net.ssl.SSLContext;

/**
 * A real {@code redis-server} (from the {@code PATH}) on a free loopback port, for tests that must make Redis
 * fail: {@link #kill()} it (SIGKILL), {@link #restart()} it on the same port, or {@link #pause(Duration)} it so
 * that it answers slowly. Nothing is persisted ({@code --save "" --appendonly no}), so a restarted server is
 * empty, as after a crash without persistence. It never touches any other Redis on the machine.
 *
 * <p>The server's output goes to {@code target/redis-server/redis-<port>.log} (relative to the working
 * directory, which is the module's directory under Maven), kept after the test for diagnosis.
 *
 * <pre>{@code
 * try (RedisServer redis = RedisServer.start()) {
 *     String uri = redis.uri();     // redis://127.0.0.1:<port>
 *     redis.kill();                 // connections drop, the port refuses
 *     redis.restart();              // same port, empty data set
 *     redis.pause(Duration.ofSeconds(2)); // every command waits until the pause ends
 * }
 * }</pre>
 *
 * <p>Optionally with credentials: {@code RedisServer.builder().user("alice", "secret").start()} creates an ACL
 * user and puts it in {@link #uri()}, with every permission or with the ACL rules given
 * ({@code user("shaper", "pw", "~shaper:*", "+evalsha", ...)}); {@link Builder#password} sets {@code requirepass}
 * for the default user, which the test's own commands ({@link #call}) use.
 *
 * <p>Optionally over TLS only: {@code RedisServer.builder().tls(certificates).start()} listens with TLS on its port
 * and nowhere in plain text ({@code --port 0}); {@link #uri()} is then {@code rediss://...}, and {@link #call} speaks
 * TLS, trusting the certificates' CA. Not thread-safe: one test drives it.
 */
public final class RedisServer implements AutoCloseable {

    /** The interface the server binds: loopback only. */
    public static final String HOST = "127.0.0.1";

    private static final Duration START_TIMEOUT = Duration.ofSeconds(15);
    private static final Duration IO_TIMEOUT = Duration.ofSeconds(5);

    private final int port;
    private final List<String> command;
    /** The credentials {@link #uri()} carries: an ACL user's, or the default user's password alone. */
    private final String user;
    private final String password;
    /** The default user's password ({@code requirepass}), for the test's own commands; null: none. */
    private final String adminPassword;
    /** The TLS context the test's own commands use, or null for a plain-text server. */
    private final SSLContext tls;
    private final Path log;
    private final Thread shutdownHook;
    private Process process;

    private RedisServer(int port, List<String> command, String user, String password, String adminPassword,
                        SSLContext tls, Path log) {
        this.port = port;
        this.command = command;
        this.user = user;
        this.password = password;
        this.adminPassword = adminPassword;
        this.tls = tls;
        this.log = log;
        this.shutdownHook = new Thread(this::destroy, "redis-server-" + port + "-shutdown");
    }

    private static final Pattern NAMED_PORT =
            Pattern.compile(Pattern.quote(HOST) + ":(\\d+)");

    /**
     * The ports of loopback servers that {@code text} names ({@code 127.0.0.1:<port>}): a test that reads a shared log
     * while other test classes run beside it keeps the lines about its own servers, and those naming none.
     */
    public static Set<Integer> portsNamedIn(String text) {
        Set<Integer> ports = new HashSet<>();
        Matcher m = NAMED_PORT.matcher(text);
        while (m.find()) {
            ports.add(Integer.parseInt(m.group(1)));
        }
        return ports;
    }

    /** Starts a server without credentials on a free port and returns once it answers. */
    public static RedisServer start() {
        return builder().start();
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Options of the server to start. */
    public static final class Builder {
        private String user;
        private String userPassword;
        private List<String> userRules = List.of();
        private String password;
        private TestCertificates certificates;
        private Path dir;
        private Duration clusterNodeTimeout;
        private final List<String> args = new ArrayList<>();

        private Builder() {
        }

        /** Creates an ACL user with all permissions; {@link #uri()} then carries these credentials. */
        public Builder user(String name, String password) {
            return user(name, password, "~*", "&*", "+@all");
        }

        /**
         * Creates an ACL user with these ACL rules (e.g. {@code "~shaper:*", "-@all", "+evalsha"}; the user is
         * switched on and given the password); {@link #uri()} then carries these credentials.
         */
        public Builder user(String name, String password, String... aclRules) {
            this.user = name;
            this.userPassword = password;
            this.userRules = List.of(aclRules);
            return this;
        }

        /**
         * Serves TLS only, with the server certificate of {@code certificates} ({@code --tls-port}, {@code --port 0});
         * clients are not asked for certificates.
         */
        public Builder tls(TestCertificates certificates) {
            this.certificates = certificates;
            return this;
        }

        /** Sets {@code requirepass}: the default user's password (used in {@link #uri()} unless a user is set). */
        public Builder password(String password) {
            this.password = password;
            return this;
        }

        /**
         * The server's working directory ({@code --dir}), created if missing: where a replica receives its master's
         * data and a cluster node keeps its {@code nodes.conf}, so a directory of its own for each such server.
         * Default: the JVM's temporary directory, where a server without replication writes nothing.
         */
        public Builder dir(Path directory) {
            this.dir = directory;
            return this;
        }

        /**
         * Makes the server a node of a Redis Cluster, to be joined with others ({@link RedisCluster} does):
         * {@code --cluster-enabled yes}, its {@code nodes.conf} in its {@link #dir}, and its cluster bus on a second
         * free port of its own ({@code --cluster-port}; the default, the port + 10000, may be taken or out of range).
         *
         * @param nodeTimeout {@code cluster-node-timeout}: how long the node may not answer before the others count
         *                    it as failed
         */
        public Builder clusterNode(Duration nodeTimeout) {
            this.clusterNodeTimeout = nodeTimeout;
            return this;
        }

        /** Extra {@code redis-server} arguments, e.g. {@code "--maxmemory", "1mb"}. */
        public Builder args(String... extra) {
            args.addAll(List.of(extra));
            return this;
        }

        private Path workingDirectory() {
            if (dir == null) {
                return Path.of(System.getProperty("java.io.tmpdir"));
            }
            try {
                return Files.createDirectories(dir);
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create " + dir, e);
            }
        }

        /** Starts the server on a free port and returns once it answers. */
        public RedisServer start() {
            IllegalStateException failure = null;
            // A free port may be taken by someone else before redis-server binds it: try a few.
            for (int attempt = 0; attempt < 3; attempt++) {
                int port = FreePort.find();
                List<String> command = new ArrayList<>(List.of("redis-server"));
                if (certificates == null) {
                    command.addAll(List.of("--port", Integer.toString(port)));
                } else {
                    command.addAll(List.of("--port", "0", "--tls-port", Integer.toString(port),
                            "--tls-cert-file", certificates.serverCertPem().toString(),
                            "--tls-key-file", certificates.serverKeyPem().toString(),
                            "--tls-ca-cert-file", certificates.caPem().toString(),
                            "--tls-auth-clients", "no"));
                }
                command.addAll(List.of("--bind", HOST,
                        "--save", "", "--appendonly", "no", "--daemonize", "no",
                        "--logfile", "", "--dir", workingDirectory().toString()));
                if (clusterNodeTimeout != null) {
                    command.addAll(List.of("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                            "--cluster-port", Integer.toString(FreePort.find()),
                            "--cluster-node-timeout", Long.toString(clusterNodeTimeout.toMillis())));
                }
                if (password != null) {
                    command.addAll(List.of("--requirepass", password));
                }
                if (user != null) {
                    command.addAll(List.of("--user", user, "on", ">" + userPassword));
                    command.addAll(userRules);
                }
                command.addAll(args);
                Path log = Path.of("target", "redis-server", "redis-" + port + ".log");
                RedisServer server = new RedisServer(port, List.copyOf(command), user,
                        user != null ? userPassword : password, password,
                        certificates == null ? null : certificates.clientContext(), log);
                try {
                    server.launch();
                    Runtime.getRuntime().addShutdownHook(server.shutdownHook);
                    return server;
                } catch (IllegalStateException e) {
                    server.destroy();
                    failure = e;
                }
            }
            throw failure;
        }
    }

    /** The URI to connect with: {@code redis://[user:password@]127.0.0.1:<port>}, {@code rediss://} over TLS. */
    public String uri() {
        String credentials = password == null ? "" : (user == null ? "" : user) + ":" + password + "@";
        return (tls == null ? "redis://" : "rediss://") + credentials + HOST + ":" + port;
    }

    public String host() {
        return HOST;
    }

    public int port() {
        return port;
    }

    /** The file that receives the server's output. */
    public Path logFile() {
        return log;
    }

    /** True while the process runs (it may still be starting or paused). */
    public boolean isRunning() {
        return process != null && process.isAlive();
    }

    /**
     * Kills the server with SIGKILL, as a crash would, and returns once the process is gone: its clients see
     * their connections drop and new connections are refused. Nothing is saved.
     */
    public void kill() {
        if (process == null) {
            return;
        }
        process.destroyForcibly(); // SIGKILL on Unix
        try {
            if (!process.waitFor(IO_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("redis-server on port " + port + " survived SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while killing redis-server", e);
        }
        process = null;
    }

    /** Kills the server if it runs, starts it again on the same port (empty) and returns once it answers. */
    public void restart() {
        kill();
        launch();
    }

    /**
     * Makes the server answer no client command (PING included) for {@code duration}: sends
     * {@code CLIENT PAUSE <ms> ALL} from a separate connection and returns at once, while the pause lasts.
     * Clients with a shorter timeout see their commands time out; queued commands run when the pause ends.
     * The pause cannot be cut short (in ALL mode even {@code CLIENT UNPAUSE} waits for its end), but
     * {@link #kill()} and {@link #close()} work at any time.
     */
    public void pause(Duration duration) {
        String reply = call("CLIENT", "PAUSE", Long.toString(Math.max(1, duration.toMillis())), "ALL");
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("CLIENT PAUSE failed: " + reply);
        }
    }

    /** True if the server answers PING within a few seconds. */
    public boolean ping() {
        try {
            return "PONG".equals(call("PING"));
        } catch (RuntimeException e) {
            return false;
        }
    }

    /**
     * Runs one command on a fresh connection, as the default user (authenticated if it has a password), over TLS
     * if the server serves TLS, and returns the reply: a simple or bulk string, an integer as text, or
     * {@code "-<error>"} for an error reply. Arrays are not supported. Meant for administration (e.g.
     * {@code SCRIPT FLUSH}); tests use a Redis client for data.
     */
    public String call(String... args) {
        try (Socket plain = new Socket()) {
            plain.connect(new InetSocketAddress(HOST, port), (int) IO_TIMEOUT.toMillis());
            plain.setSoTimeout((int) IO_TIMEOUT.toMillis());
            Socket socket = tls == null ? plain : tls.getSocketFactory().createSocket(plain, HOST, port, true);
            OutputStream out = socket.getOutputStream();
            InputStream in = new BufferedInputStream(socket.getInputStream());
            if (adminPassword != null) {
                String auth = send(out, in, "AUTH", adminPassword);
                if (!"OK".equals(auth)) {
                    throw new IllegalStateException("AUTH failed: " + auth);
                }
            }
            return send(out, in, args);
        } catch (IOException e) {
            throw new UncheckedIOException("redis-server on port " + port + ": " + e.getMessage(), e);
        }
    }

    /** Kills the server (if it still runs). The log file stays. */
    @Override
    public void close() {
        destroy();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException e) {
            // the JVM is shutting down: the hook runs anyway
        }
    }

    @Override
    public String toString() {
        return "redis-server " + HOST + ":" + port;
    }

    private void destroy() {
        try {
            kill();
        } catch (RuntimeException e) {
            // best effort
        }
    }

    private void launch() {
        try {
            Files.createDirectories(log.getParent());
            Files.writeString(log, "=== " + String.join(" ", command) + System.lineSeparator(),
                    StandardCharsets.UTF_8, java.nio.file.StandardOpenOption.CREATE,
                    java.nio.file.StandardOpenOption.APPEND);
            process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start redis-server (is it on the PATH?): " + e.getMessage(), e);
        }
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (true) {
            if (!process.isAlive()) {
                int status = process.exitValue();
                process = null;
                throw new IllegalStateException("redis-server on port " + port + " exited with status " + status
                        + " before answering; its output:\n" + readLog());
            }
            try {
                if (answers()) {
                    return;
                }
            } catch (IllegalStateException e) {
                kill();
                throw e;
            }
            if (System.nanoTime() > deadline) {
                kill();
                throw new IllegalStateException("redis-server on port " + port + " did not answer within "
                        + START_TIMEOUT + "; its output:\n" + readLog());
            }
            try {
                Thread.sleep(10);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                kill();
                throw new IllegalStateException("interrupted while starting redis-server", e);
            }
        }
    }

    /**
     * True once our process answers on its port. Checks the process id in {@code INFO server}, so that another
     * server that took the port meanwhile is not mistaken for ours.
     */
    private boolean answers() {
        String info;
        try {
            info = call("INFO", "server");
        } catch (UncheckedIOException e) {
            return false; // not listening yet
        }
        if (info == null || !info.contains("process_id:")) {
            throw new IllegalStateException("unexpected INFO reply from port " + port + ": " + info);
        }
        if (!info.contains("process_id:" + process.pid() + "\r\n")) {
            throw new IllegalStateException("port " + port + " is served by another process");
        }
        return true;
    }

    private String readLog() {
        try {
            return Files.readString(log, StandardCharsets.UTF_8);
        } catch (IOException e) {
            return "(cannot read " + log + ": " + e.getMessage() + ")";
        }
    }

    private static String send(OutputStream out, InputStream in, String... args) throws IOException {
        StringBuilder request = new StringBuilder("*").append(args.length).append("\r\n");
        for (String arg : args) {
            byte[] bytes = arg.getBytes(StandardCharsets.UTF_8);
            request.append('$').append(bytes.length).append("\r\n").append(arg).append("\r\n");
        }
        out.write(request.toString().getBytes(StandardCharsets.UTF_8));
        out.flush();
        String line = readLine(in);
        if (line.isEmpty()) {
            throw new IOException("empty reply");
        }
        switch (line.charAt(0)) {
            case '+':
            case ':':
                return line.substring(1);
            case '-':
                return line;
            case '$': {
                int length = Integer.parseInt(line.substring(1));
                if (length < 0) {
                    return null;
                }
                byte[] data = in.readNBytes(length + 2);
                if (data.length != length + 2) {
                    throw new IOException("truncated reply");
                }
                return new String(data, 0, length, StandardCharsets.UTF_8);
            }
            default:
                throw new IOException("unsupported reply type: " + line);
        }
    }

    private static String readLine(InputStream in) throws IOException {
        StringBuilder line = new StringBuilder();
        int c;
        while ((c = in.read()) != -1) {
            if (c == '\r') {
                if (in.read() != '\n') {
                    throw new IOException("malformed reply");
                }
                return line.toString();
            }
            line.append((char) c);
        }
        throw new IOException("connection closed by redis-server");
    }
}
