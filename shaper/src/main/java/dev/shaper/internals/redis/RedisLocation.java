package dev.shaper.internals.redis;

import io.lettuce.core.RedisURI;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * Where {@code shaper.redis.uri} says Redis is: one server ({@code redis://}, {@code rediss://}) or the seed nodes of
 * a Redis Cluster ({@code redis-cluster://}, {@code rediss-cluster://}), from which the client learns the rest of the
 * cluster. The one parser of that setting, for the configuration's validation and for the client alike.
 *
 * @param cluster     whether the URI names a Redis Cluster
 * @param nodes       the server, or the cluster's seed nodes, each with the URI's credentials and TLS
 * @param description the URI without user or password, for logs
 */
public record RedisLocation(boolean cluster, List<RedisURI> nodes, String description) {

    /** The form of a single server's URI, as error messages name it. */
    public static final String SERVER_FORM = "redis://[user:password@]host:port[/db]";
    /** The form of a Redis Cluster's URI, as error messages name it. */
    public static final String CLUSTER_FORM = "redis-cluster://[user:password@]host:port[,host:port...]";

    private static final String SERVER = "redis://";
    private static final String TLS_SERVER = "rediss://";
    private static final String CLUSTER = "redis-cluster://";
    private static final String TLS_CLUSTER = "rediss-cluster://";

    public RedisLocation {
        nodes = List.copyOf(nodes);
    }

    /**
     * Parses {@code uri}. Throws {@link IllegalArgumentException} for a malformed one, with a message that names the
     * expected form and never holds any part of the URI (it may hold a password).
     */
    public static RedisLocation parse(String uri) {
        String trimmed = uri.trim();
        if (trimmed.startsWith(CLUSTER) || trimmed.startsWith(TLS_CLUSTER)) {
            return cluster(trimmed);
        }
        if (trimmed.startsWith(SERVER) || trimmed.startsWith(TLS_SERVER)) {
            RedisURI server = node(trimmed, trimmed, SERVER_FORM);
            return new RedisLocation(false, List.of(server), describe(server));
        }
        throw new IllegalArgumentException("expected " + SERVER_FORM + " or rediss://... (TLS) for one Redis, or "
                + CLUSTER_FORM + " or rediss-cluster://... (TLS) for a Redis Cluster");
    }

    /**
     * A cluster's seeds: the host list split here (Lettuce's own parser cannot read IPv6 literals in a list), each
     * node parsed as a single server's URI with the list's credentials and TLS.
     */
    private static RedisLocation cluster(String uri) {
        boolean tls = uri.startsWith(TLS_CLUSTER);
        String rest = uri.substring((tls ? TLS_CLUSTER : CLUSTER).length());
        // The credentials end at the last '@': the hosts hold none.
        int at = rest.lastIndexOf('@');
        String credentials = rest.substring(0, at + 1);
        String hosts = rest.substring(at + 1);
        if (hosts.contains("/") || hosts.contains("?")) {
            throw new IllegalArgumentException("expected " + CLUSTER_FORM + ": a Redis Cluster has one database,"
                    + " so the URI takes no /db (nor options after a '?')");
        }
        List<RedisURI> nodes = new ArrayList<>();
        for (String host : hosts.split(",", -1)) {
            if (host.isBlank()) {
                throw new IllegalArgumentException("expected " + CLUSTER_FORM + ", with at least one host and no"
                        + " empty entry in the comma-separated list");
            }
            nodes.add(node((tls ? TLS_SERVER : SERVER) + credentials + host.trim(), uri, CLUSTER_FORM));
        }
        String description = (tls ? TLS_CLUSTER : CLUSTER) + nodes.stream()
                .map(node -> node.getHost() + ":" + node.getPort()).collect(Collectors.joining(","));
        return new RedisLocation(true, nodes, description);
    }

    /** One server's URI, its host and port checked; {@code whole} is the setting, hidden from any message. */
    private static RedisURI node(String uri, String whole, String form) {
        RedisURI parsed;
        try {
            parsed = RedisURI.create(uri);
        } catch (IllegalArgumentException e) {
            String why = String.valueOf(e.getMessage()).replace(whole, "[hidden]").replace(uri, "[hidden]");
            throw new IllegalArgumentException("not a valid Redis URI (expected " + form + "): " + why);
        }
        // Lettuce keeps what follows a colon that does not start a number in the host ("127.0.0.1:notaport")
        // and connects to the default port; only an IPv6 literal in brackets may hold colons.
        String host = parsed.getHost();
        boolean ipv6 = host != null && host.startsWith("[") && host.endsWith("]");
        if (host == null || host.isEmpty() || host.startsWith(":") || (!ipv6 && host.contains(":"))) {
            // The host is not echoed either: with a malformed URI it may hold part of the password.
            throw new IllegalArgumentException("expected " + form + ", with a host and a port number from 1 to 65535"
                    + " (the port may be left out for 6379)");
        }
        return parsed;
    }

    /** {@code redis://host:port/db}, with any user and password left out. */
    static String describe(RedisURI uri) {
        return (uri.isSsl() ? TLS_SERVER : SERVER) + uri.getHost() + ":" + uri.getPort()
                + (uri.getDatabase() != 0 ? "/" + uri.getDatabase() : "");
    }
}
