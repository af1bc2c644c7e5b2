package dev.shaper.internals.redis;

import io.lettuce.core.RedisException;
import io.lettuce.core.RedisFuture;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.api.sync.RedisClusterCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.RedisCodec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;

/**
 * A {@link RedisConnection} to a Redis Cluster: Lettuce routes each command to the master of its first key's slot
 * and follows MOVED and ASK; this adds the health check of the whole cluster and the masters' connections.
 */
final class ClusterRedisConnection<K, V> implements RedisConnection<K, V> {

    private final RedisClusterClient client;
    private final StatefulRedisClusterConnection<K, V> connection;
    private final RedisCodec<K, V> codec;
    /** The longest a topology refresh may take: as long as connecting, since it may connect to every node. */
    private final Duration refreshTimeout;
    /** When a failed ping last read the topology again. */
    private final AtomicLong lastRefreshNanos = new AtomicLong(System.nanoTime() - RedisClients.TOPOLOGY_REFRESH_GAP
            .toNanos());

    ClusterRedisConnection(RedisClusterClient client, StatefulRedisClusterConnection<K, V> connection,
                           RedisCodec<K, V> codec, Duration refreshTimeout) {
        this.client = client;
        this.connection = connection;
        this.codec = codec;
        this.refreshTimeout = refreshTimeout;
    }

    @Override
    public RedisClusterCommands<K, V> sync() {
        return connection.sync();
    }

    @Override
    public <T> List<RedisFuture<T>> pipeline(Function<RedisClusterAsyncCommands<K, V>, List<RedisFuture<T>>> sends) {
        // Auto-flush stays on: Lettuce writes a redirected command, or one that waited for a new node's connection,
        // on that node's connection from its own thread, where nothing would flush it if auto-flush were off.
        return sends.apply(connection.async());
    }

    @Override
    public String nodeOf(K key) {
        RedisClusterNode master = connection.getPartitions().getMasterBySlot(SlotHash.getSlot(codec.encodeKey(key)));
        return master == null ? "" : master.getUri().getHost() + ":" + master.getUri().getPort();
    }

    @Override
    public String ping() {
        try {
            return pingEveryMaster();
        } catch (RedisException e) {
            // The topology the client holds may be stale: a failover moved slots to another node. It is read again
            // at most once per gap: reading it connects to every node, and each connection sets off another ping.
            long now = System.nanoTime();
            long last = lastRefreshNanos.get();
            boolean due = now - last >= RedisClients.TOPOLOGY_REFRESH_GAP.toNanos();
            if (!due || !lastRefreshNanos.compareAndSet(last, now)) {
                throw e;
            }
            refreshTopology();
            return pingEveryMaster();
        }
    }

    /** Checks that every slot has a master, as the client sees the topology, and pings each master. */
    private String pingEveryMaster() {
        BitSet served = new BitSet(SlotHash.SLOT_COUNT);
        for (RedisClusterNode master : slotMasters()) {
            master.forEachSlot(served::set);
        }
        int unserved = SlotHash.SLOT_COUNT - served.cardinality();
        if (unserved > 0) {
            // Until a replica takes a failed master's place, the keys of its slots cannot be used.
            throw new RedisException("CLUSTERDOWN " + unserved + " of the cluster's " + SlotHash.SLOT_COUNT
                    + " slots have no master");
        }
        for (RedisClusterCommands<K, V> master : masters()) {
            String reply = master.ping();
            if (!"PONG".equals(reply)) {
                return reply;
            }
        }
        return "PONG";
    }

    /** Reads the cluster's topology again, now, rather than at the next periodic or adaptive refresh. */
    private void refreshTopology() {
        try {
            client.refreshPartitionsAsync().toCompletableFuture()
                    .get(refreshTimeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new RedisException("cannot read the cluster's topology: " + e.getCause().getMessage(),
                    e.getCause());
        } catch (TimeoutException e) {
            throw new RedisException("cannot read the cluster's topology within " + refreshTimeout);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new RedisException("interrupted while reading the cluster's topology", e);
        }
    }

    @Override
    public List<RedisClusterCommands<K, V>> masters() {
        List<RedisClusterCommands<K, V>> masters = new ArrayList<>();
        for (RedisClusterNode master : slotMasters()) {
            // By host and port: the connection that commands routed by slot to this master use.
            masters.add(connection.getConnection(master.getUri().getHost(), master.getUri().getPort()).sync());
        }
        return masters;
    }

    /** The masters that serve slots, as the client last read the topology (failed nodes are filtered out). */
    private List<RedisClusterNode> slotMasters() {
        List<RedisClusterNode> masters = new ArrayList<>();
        for (RedisClusterNode node : connection.getPartitions()) {
            if (node.is(RedisClusterNode.NodeFlag.UPSTREAM) && !node.hasNoSlots()) {
                masters.add(node);
            }
        }
        return masters;
    }

    @Override
    public boolean isOpen() {
        return connection.isOpen();
    }

    @Override
    public void close() {
        connection.close();
    }
}
