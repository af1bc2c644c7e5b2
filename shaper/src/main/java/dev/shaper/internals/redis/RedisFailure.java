package dev.shaper.internals.redis;

import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import javax.net.ssl.SSLException;

/**
 * Why Redis could not be used, as far as the client can tell. A Redis that does not answer may come back on
 * its own; one that refuses the credentials or whose certificate is not trusted never will until someone
 * changes the configuration, so each kind is named in the log, the metrics and the health detail.
 *
 * @param kind   what went wrong
 * @param detail the message of the error that decided the kind (Redis's error or the TLS failure); it never
 *               holds the password, which Redis and the JDK do not echo
 */
public record RedisFailure(Kind kind, String detail) {

    /** The kinds of failure, each with a different remedy. */
    public enum Kind {
        /**
         * No answer within the timeout, connection refused or lost: Redis is down, overloaded or out of reach; or a
         * Redis Cluster in a failover or a slot migration ({@link #CLUSTER_TRANSITIONS}), which ends on its own.
         */
        UNREACHABLE,
        /** Redis refuses the credentials ({@code WRONGPASS}) or wants some ({@code NOAUTH}). */
        AUTHENTICATION,
        /** The ACL user may not run a command the shaper needs ({@code NOPERM}). */
        PERMISSION,
        /** The TLS handshake failed: most often the server's certificate is not trusted or names another host. */
        TLS,
        /** Redis is at its {@code maxmemory} and refuses writes ({@code OOM}) under a policy that evicts nothing. */
        OUT_OF_MEMORY;

        /**
         * The name as a metric tag: {@code unreachable}, {@code authentication}, {@code permission}, {@code tls},
         * {@code out_of_memory}.
         */
        public String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /**
     * How deep a cause chain (and the chains of what it suppressed) is searched; Lettuce nests the decisive error two
     * or three levels down.
     */
    private static final int MAX_DEPTH = 16;
    /**
     * The errors of a Redis Cluster whose topology is changing: a redirection (MOVED, ASK; the cluster client follows
     * them, so one reaches the shaper only when the URI names a single node of a cluster), slots without a master
     * during a failover (CLUSTERDOWN), a key moving between nodes (TRYAGAIN), a replica without its master
     * (MASTERDOWN), a promoted node still loading (LOADING). Transient, unless a refusal is also in the cause chain.
     */
    static final List<String> CLUSTER_TRANSITIONS = List.of("MOVED ", "ASK ", "CLUSTERDOWN", "TRYAGAIN", "MASTERDOWN",
            "LOADING");
    /** What Redis (7.0 and later) answers when a script calls a command the ACL refuses its user. */
    static final String SCRIPT_NOPERM = "The user executing the script can't run this command";

    /**
     * Classifies {@code failure} by its cause chain and the exceptions suppressed along it (a cluster client that
     * reaches no node reports each node's failure as one); a refusal anywhere in it decides over a transient error
     * elsewhere (one node refusing the credentials while another still loads is a configuration to fix); anything
     * that is not a refusal counts as unreachable.
     */
    public static RedisFailure of(Throwable failure) {
        List<RedisFailure> decided = new ArrayList<>();
        search(failure, 0, Collections.newSetFromMap(new IdentityHashMap<>()), decided);
        for (RedisFailure each : decided) {
            if (each.isRefusal()) {
                return each;
            }
        }
        return !decided.isEmpty() ? decided.get(0)
                : new RedisFailure(Kind.UNREACHABLE, failure == null ? "no answer" : rootMessage(failure));
    }

    /** Every error that decides a kind, depth first: each link of the chain, then what it suppressed. */
    private static void search(Throwable failure, int depth, Set<Throwable> seen, List<RedisFailure> decided) {
        for (Throwable t = failure; t != null && depth < MAX_DEPTH && seen.add(t); depth++, t = t.getCause()) {
            RedisFailure kind = classify(t);
            if (kind != null) {
                decided.add(kind);
            }
            for (Throwable suppressed : t.getSuppressed()) {
                search(suppressed, depth + 1, seen, decided);
            }
        }
    }

    /** The failure {@code t} itself decides, or null. */
    private static RedisFailure classify(Throwable t) {
        if (t instanceof SSLException) {
            return new RedisFailure(Kind.TLS, rootMessage(t));
        }
        String message = t.getMessage() == null ? "" : t.getMessage();
        if (isClusterTransition(message)) {
            return new RedisFailure(Kind.UNREACHABLE, message);
        }
        if (message.startsWith("WRONGPASS") || message.startsWith("NOAUTH")) {
            return new RedisFailure(Kind.AUTHENTICATION, message);
        }
        // A command the ACL refuses inside a script: Redis's own words, without the NOPERM code
        if (message.startsWith("NOPERM") || message.contains(SCRIPT_NOPERM)) {
            return new RedisFailure(Kind.PERMISSION, message);
        }
        if (message.startsWith("OOM ")) {
            return new RedisFailure(Kind.OUT_OF_MEMORY, message);
        }
        return null;
    }

    private static boolean isClusterTransition(String message) {
        return CLUSTER_TRANSITIONS.stream().anyMatch(message::startsWith);
    }

    /** True for the kinds that configuration must fix: Redis answers, but refuses the shaper. */
    public boolean isRefusal() {
        return kind != Kind.UNREACHABLE;
    }

    /**
     * What Redis does and what to do about it, to follow the Redis's name in a log line or the health detail:
     * e.g. "refuses the shaper's credentials: WRONGPASS ...; check the user and password in shaper.redis.uri".
     */
    public String describe() {
        return switch (kind) {
            case UNREACHABLE -> !isClusterTransition(detail) ? "does not answer: " + detail
                    : detail.startsWith("MOVED ") || detail.startsWith("ASK ")
                    ? "redirects the shaper to another node: " + detail + "; if shaper.redis.uri names a node of a"
                    + " Redis Cluster, name the cluster: redis-cluster://host:port[,host:port...]"
                    : "is changing its cluster's topology (a failover or a slot migration): " + detail;
            case AUTHENTICATION -> "refuses the shaper's credentials: " + detail + "; check the user and password in"
                    + " shaper.redis.uri";
            case PERMISSION -> "does not let the shaper's user run a command it needs: " + detail + "; grant the ACL"
                    + " user the commands listed in docs/security.md";
            case OUT_OF_MEMORY -> "is out of memory and refuses the shaper's writes: " + detail + "; raise its"
                    + " maxmemory, or let it evict keys (maxmemory-policy allkeys-lru: the shaper's keys expire on"
                    + " their own and are rebuilt)";
            case TLS -> "fails the TLS handshake: " + detail + "; the server's certificate must be signed by a CA the"
                    + " shaper trusts (shaper.redis.tls.ca.file or the JVM's truststore) and name the host of"
                    + " shaper.redis.uri";
        };
    }

    /** The innermost message: for TLS it says what was wrong with the certificate, not only that it failed. */
    private static String rootMessage(Throwable t) {
        Throwable root = t;
        for (int depth = 0; root.getCause() != null && depth < MAX_DEPTH; depth++) {
            root = root.getCause();
        }
        String message = root.getMessage() != null ? root.getMessage() : t.getMessage();
        return message != null ? message : t.getClass().getSimpleName();
    }
}
