package dev.shaper.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * A real Redis Cluster on this machine: {@link RedisServer} processes started with {@code --cluster-enabled yes}, each
 * in a directory of its own, joined by {@code redis-cli --cluster create}, for tests that run the shaper on a cluster
 * and make a node fail: {@link RedisServer#kill()} a master, and its replica takes its place after the cluster's node
 * timeout (the cluster's own failover, as in production); or move a slot to another master as a resharding does
 * ({@link #migrateKeys}, then {@link #assignSlot}), so that clients meet ASK and MOVED. Nothing is persisted but each
 * node's {@code nodes.conf}.
 *
 * <pre>{@code
 * try (RedisCluster cluster = RedisCluster.start(3, 1, Duration.ofMillis(2000))) {
 *     String uri = cluster.uri();                   // redis-cluster://127.0.0.1:<port>,...
 *     RedisServer master = cluster.masterOf(slot);  // SlotHash.getSlot(key)
 *     master.kill();
 *     cluster.awaitHealthy(Duration.ofSeconds(20)); // its replica promoted, every slot served again
 * }
 * }</pre>
 *
 * <p>The nodes' output goes to {@code target/redis-server/redis-<port>.log}, {@code redis-cli}'s to
 * {@code target/redis-server/redis-cluster-create-<port>.log}. Not thread-safe: one test drives it.
 */
public final class RedisCluster implements AutoCloseable {

    /** The slots of a Redis Cluster: 0 to 16383. */
    public static final int SLOTS = 16384;

    private static final Duration CREATE_TIMEOUT = Duration.ofSeconds(30);
    private static final Duration HEALTHY_TIMEOUT = Duration.ofSeconds(30);

    /** A node as a running node's {@code CLUSTER NODES} shows it. */
    private record Node(String id, int port, Set<String> flags, String masterId, BitSet slots) {

        boolean isServingMaster() {
            return flags.contains("master") && !flags.contains("fail") && !flags.contains("fail?");
        }
    }

    private final List<RedisServer> servers;
    private final Path directory;

    private RedisCluster(List<RedisServer> servers, Path directory) {
        this.servers = servers;
        this.directory = directory;
    }

    /**
     * Starts {@code masters} masters with {@code replicasPerMaster} replicas each, joins them into one cluster whose
     * slots are split evenly among the masters, and returns once it is {@link #awaitHealthy healthy}.
     *
     * @param nodeTimeout the cluster's {@code cluster-node-timeout}: how long a node may not answer before the
     *                    others count it as failed and its replica takes over (about twice that, in all)
     */
    public static RedisCluster start(int masters, int replicasPerMaster, Duration nodeTimeout) {
        Path directory;
        try {
            directory = Files.createTempDirectory("redis-cluster");
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create a directory for the cluster's nodes", e);
        }
        List<RedisServer> servers = new ArrayList<>();
        RedisCluster cluster = new RedisCluster(servers, directory);
        try {
            for (int i = 0; i < masters * (1 + replicasPerMaster); i++) {
                servers.add(RedisServer.builder()
                        .dir(directory.resolve("node-" + i))
                        .clusterNode(nodeTimeout)
                        // A replica's first copy starts at once, not after the default 5 s wait for other replicas.
                        .args("--repl-diskless-sync-delay", "0")
                        .start());
            }
            cluster.create(replicasPerMaster);
            cluster.awaitHealthy(HEALTHY_TIMEOUT);
            return cluster;
        } catch (RuntimeException e) {
            cluster.close();
            throw e;
        }
    }

    /** {@code redis-cli --cluster create}: the first servers become the masters, the others their replicas. */
    private void create(int replicasPerMaster) {
        List<String> command = new ArrayList<>(List.of("redis-cli", "--cluster", "create"));
        servers.forEach(server -> command.add(RedisServer.HOST + ":" + server.port()));
        command.addAll(List.of("--cluster-replicas", Integer.toString(replicasPerMaster), "--cluster-yes"));
        Path log = Path.of("target", "redis-server", "redis-cluster-create-" + servers.get(0).port() + ".log");
        try {
            Files.createDirectories(log.getParent());
            Process cli = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.to(log.toFile())).start();
            if (!cli.waitFor(CREATE_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
                cli.destroyForcibly();
                throw new IllegalStateException("redis-cli --cluster create did not finish within " + CREATE_TIMEOUT
                        + "; its output:\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
            if (cli.exitValue() != 0) {
                throw new IllegalStateException("redis-cli --cluster create exited with status " + cli.exitValue()
                        + "; its output:\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run redis-cli (is it on the PATH?): " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating the cluster", e);
        }
    }

    /** {@code redis-cluster://127.0.0.1:<port>,...}: every node, so that any one of them failing does not matter. */
    public String uri() {
        return "redis-cluster://" + servers.stream().map(server -> RedisServer.HOST + ":" + server.port())
                .collect(Collectors.joining(","));
    }

    /** Every node, masters and replicas, running or killed. */
    public List<RedisServer> nodes() {
        return List.copyOf(servers);
    }

    /** The running masters that serve slots, as the cluster sees them now. */
    public List<RedisServer> masters() {
        return view().stream().filter(node -> node.isServingMaster() && !node.slots().isEmpty())
                .map(node -> server(node.port())).filter(RedisServer::isRunning).toList();
    }

    /** The master that serves {@code slot} now, as a running node sees it. */
    public RedisServer masterOf(int slot) {
        return view().stream().filter(node -> node.isServingMaster() && node.slots().get(slot))
                .map(node -> server(node.port())).findFirst()
                .orElseThrow(() -> new IllegalStateException("no master serves slot " + slot));
    }

    /**
     * The master of every slot now, as a running node sees it: the list's {@code slot}-th element (null for a slot
     * no master serves), read once, for a test that looks up many slots.
     */
    public List<RedisServer> mastersBySlot() {
        RedisServer[] masters = new RedisServer[SLOTS];
        for (Node node : view()) {
            if (node.isServingMaster()) {
                RedisServer server = server(node.port());
                node.slots().stream().forEach(slot -> masters[slot] = server);
            }
        }
        return Arrays.asList(masters);
    }

    /** A replica of {@code master}, as a running node sees it. */
    public RedisServer replicaOf(RedisServer master) {
        String masterId = nodeId(master);
        return view().stream().filter(node -> masterId.equals(node.masterId())).map(node -> server(node.port()))
                .findFirst().orElseThrow(() -> new IllegalStateException(master + " has no replica"));
    }

    /**
     * Starts moving {@code slot} to the master {@code to}, as a resharding does: the slot importing on {@code to} and
     * migrating on its master, then {@code keys} moved there ({@code MIGRATE}). Until {@link #assignSlot}, the old
     * master answers ASK for a key it no longer holds.
     */
    public void migrateKeys(int slot, RedisServer to, String... keys) {
        RedisServer from = masterOf(slot);
        expectOk(to.call("CLUSTER", "SETSLOT", Integer.toString(slot), "IMPORTING", nodeId(from)));
        expectOk(from.call("CLUSTER", "SETSLOT", Integer.toString(slot), "MIGRATING", nodeId(to)));
        List<String> migrate = new ArrayList<>(List.of("MIGRATE", RedisServer.HOST, Integer.toString(to.port()), "",
                "0", "5000", "KEYS"));
        migrate.addAll(List.of(keys));
        expectOk(from.call(migrate.toArray(String[]::new)));
    }

    /**
     * Ends a move: {@code slot} assigned to the master {@code to} on every running master, the new one first, as
     * {@code redis-cli --cluster reshard} does. A client that still routes the slot to the old master gets MOVED.
     */
    public void assignSlot(int slot, RedisServer to) {
        String toId = nodeId(to);
        List<RedisServer> order = new ArrayList<>(List.of(to, masterOf(slot)));
        masters().stream().filter(master -> order.stream().noneMatch(m -> m.port() == master.port()))
                .forEach(order::add);
        for (RedisServer master : order) {
            expectOk(master.call("CLUSTER", "SETSLOT", Integer.toString(slot), "NODE", toId));
        }
    }

    private String nodeId(RedisServer server) {
        return view().stream().filter(node -> node.port() == server.port()).map(Node::id).findFirst()
                .orElseThrow(() -> new IllegalStateException(server + " is not in the cluster"));
    }

    private static void expectOk(String reply) {
        if (!"OK".equals(reply)) {
            throw new IllegalStateException("expected OK, got " + reply);
        }
    }

    /**
     * Returns once the cluster is whole again: every running node says {@code cluster_state:ok} and sees every slot
     * served by a running master, and every running replica of a running master is in sync with it. After a master
     * was killed, that is once its replica has taken its place.
     */
    public void awaitHealthy(Duration timeout) {
        Await.until(this::state, timeout, this::isHealthy);
    }

    private boolean isHealthy() {
        try {
            for (RedisServer server : running()) {
                if (!server.call("CLUSTER", "INFO").contains("cluster_state:ok")) {
                    return false;
                }
                List<Node> view = parse(server.call("CLUSTER", "NODES"));
                BitSet served = new BitSet(SLOTS);
                for (Node node : view) {
                    if (node.isServingMaster() && server(node.port()).isRunning()) {
                        served.or(node.slots());
                    }
                }
                if (served.cardinality() < SLOTS || !inSyncIfReplica(server, view)) {
                    return false;
                }
            }
            return true;
        } catch (RuntimeException e) {
            return false; // a node that does not answer yet (or any more): not healthy now
        }
    }

    /** Whether {@code server}, if it is a replica of a running master, has its link to the master up. */
    private boolean inSyncIfReplica(RedisServer server, List<Node> view) {
        String masterId = view.stream().filter(node -> node.port() == server.port()).map(Node::masterId)
                .filter(id -> id != null).findFirst().orElse(null);
        boolean masterRuns = masterId != null && view.stream().filter(node -> masterId.equals(node.id()))
                .anyMatch(node -> server(node.port()).isRunning());
        return !masterRuns || server.call("INFO", "replication").contains("master_link_status:up");
    }

    /** Each running node's cluster state, for a test that timed out waiting. */
    private String state() {
        StringBuilder state = new StringBuilder();
        for (RedisServer server : running()) {
            String nodes;
            try {
                nodes = server.call("CLUSTER", "NODES");
            } catch (RuntimeException e) {
                nodes = e.getMessage();
            }
            state.append(System.lineSeparator()).append(server).append(": ").append(nodes);
        }
        return state.toString();
    }

    private List<RedisServer> running() {
        return servers.stream().filter(RedisServer::isRunning).toList();
    }

    private RedisServer server(int port) {
        return servers.stream().filter(server -> server.port() == port).findFirst()
                .orElseThrow(() -> new IllegalStateException("no node of this cluster on port " + port));
    }

    /** The cluster as the first running node sees it. */
    private List<Node> view() {
        RedisServer any = running().stream().findFirst()
                .orElseThrow(() -> new IllegalStateException("no node of the cluster runs"));
        return parse(any.call("CLUSTER", "NODES"));
    }

    /**
     * {@code CLUSTER NODES}: one line per node, {@code <id> <ip:port@cport> <flags> <master id or -> <ping sent>
     * <pong received> <epoch> <link state> <slot or range>...}; a slot being moved ({@code [...]}) is left out.
     */
    private static List<Node> parse(String clusterNodes) {
        List<Node> nodes = new ArrayList<>();
        for (String line : clusterNodes.split("\n")) {
            String[] fields = line.trim().split(" ");
            if (fields.length < 8) {
                continue;
            }
            String address = fields[1].split("@")[0];
            int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
            BitSet slots = new BitSet(SLOTS);
            for (int i = 8; i < fields.length; i++) {
                if (fields[i].startsWith("[")) {
                    continue;
                }
                String[] range = fields[i].split("-");
                int from = Integer.parseInt(range[0]);
                slots.set(from, (range.length == 2 ? Integer.parseInt(range[1]) : from) + 1);
            }
            nodes.add(new Node(fields[0], port, Set.of(fields[2].split(",")), "-".equals(fields[3]) ? null
                    : fields[3], slots));
        }
        return nodes;
    }

    /** Kills every node and deletes their directories. */
    @Override
    public void close() {
        servers.forEach(RedisServer::close);
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(file -> file.toFile().delete());
        } catch (IOException e) {
            // best effort: a temporary directory
        }
    }

    @Override
    public String toString() {
        return "Redis Cluster " + uri();
    }
}
