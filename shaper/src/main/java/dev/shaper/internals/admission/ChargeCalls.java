package dev.shaper.internals.admission;

import io.lettuce.core.cluster.SlotHash;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Splits the charges of one batched sync into script calls, each charging several buckets at once.
 *
 * <p>Why: a script call per key costs Redis a command parse, a script lookup, a {@code TIME} and a reply per
 * key, and the client a command object per key; with thousands of active keys per sync interval that was most
 * of Redis's work. One call for many keys pays those once. On Redis Cluster a script may only touch keys of
 * one hash slot, so there the charges are grouped by slot (the bucket names carry the admission key as a hash
 * tag); a standalone Redis takes any keys together.
 */
final class ChargeCalls {

    private ChargeCalls() {
    }

    /**
     * The charges' indexes, grouped into calls of at most {@code maxPerCall} buckets, in first-seen order.
     *
     * @param bucketNames the Redis key of each charge's bucket
     * @param cluster     whether the server is a Redis Cluster node (then a call holds one slot's keys)
     */
    static List<List<Integer>> group(List<byte[]> bucketNames, boolean cluster, int maxPerCall) {
        List<List<Integer>> calls = new ArrayList<>();
        if (!cluster) {
            for (int from = 0; from < bucketNames.size(); from += maxPerCall) {
                List<Integer> call = new ArrayList<>();
                for (int i = from; i < Math.min(bucketNames.size(), from + maxPerCall); i++) {
                    call.add(i);
                }
                calls.add(call);
            }
            return calls;
        }
        Map<Integer, List<Integer>> open = new LinkedHashMap<>();
        for (int i = 0; i < bucketNames.size(); i++) {
            int slot = SlotHash.getSlot(bucketNames.get(i));
            List<Integer> call = open.computeIfAbsent(slot, s -> new ArrayList<>());
            call.add(i);
            if (call.size() == maxPerCall) {
                calls.add(call);
                open.remove(slot);
            }
        }
        calls.addAll(open.values());
        return calls;
    }
}
