package dev.shaper.internals.admission;

import static org.assertj.core.api.Assertions.assertThat;

import io.lettuce.core.cluster.SlotHash;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class ChargeCallsTest {

    private static List<byte[]> bucketNames(String... admissionKeys) {
        List<byte[]> names = new ArrayList<>();
        for (String key : admissionKeys) {
            names.add(LimitScript.keyName(AdmissionAlgorithm.TOKEN_BUCKET, key.getBytes(StandardCharsets.UTF_8)));
        }
        return names;
    }

    @Test
    void standaloneRedisTakesAnyKeysTogetherUpToTheLimitPerCall() {
        List<byte[]> names = bucketNames("a", "b", "c", "d", "e");

        assertThat(ChargeCalls.group(names, false, 2))
                .containsExactly(List.of(0, 1), List.of(2, 3), List.of(4));
    }

    @Test
    void onAClusterEachCallHoldsTheKeysOfOneSlotOnly() {
        // "a" and "{a}x" hash alike only through the hash tag; find keys of two other slots too
        List<String> keys = new ArrayList<>(List.of("a", "b", "a", "c", "b", "a"));
        List<byte[]> names = bucketNames(keys.toArray(String[]::new));

        List<List<Integer>> calls = ChargeCalls.group(names, true, 2);

        List<Integer> all = new ArrayList<>();
        for (List<Integer> call : calls) {
            assertThat(call).hasSizeBetween(1, 2);
            int slot = SlotHash.getSlot(names.get(call.get(0)));
            assertThat(call).allSatisfy(i -> assertThat(SlotHash.getSlot(names.get(i))).isEqualTo(slot));
            all.addAll(call);
        }
        assertThat(all).containsExactlyInAnyOrder(0, 1, 2, 3, 4, 5);
        // three "a" charges with at most two per call: two calls for slot(a)
        assertThat(calls).contains(List.of(0, 2), List.of(5));
    }

    @Test
    void onAClusterABatchOfManyKeysIsSplitBySlotKeepingEachSlotsChargesInOrder() {
        // 1,000 admission keys over some 1,000 slots, a tenth of them charged twice
        List<String> keys = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            keys.add("tenant-" + i);
            if (i % 10 == 0) {
                keys.add("tenant-" + i);
            }
        }
        List<byte[]> names = bucketNames(keys.toArray(String[]::new));

        List<List<Integer>> calls = ChargeCalls.group(names, true, 128);

        Map<Integer, List<Integer>> bySlot = new HashMap<>();
        List<Integer> all = new ArrayList<>();
        for (List<Integer> call : calls) {
            int slot = SlotHash.getSlot(names.get(call.get(0)));
            assertThat(call).allSatisfy(i -> assertThat(SlotHash.getSlot(names.get(i))).isEqualTo(slot));
            assertThat(bySlot).as("one call per slot when no slot holds more than 128 charges")
                    .doesNotContainKey(slot);
            assertThat(call).isSorted();
            bySlot.put(slot, call);
            all.addAll(call);
        }
        // every charge in exactly one call: the replies can be put back in the batch's order
        assertThat(all).hasSize(names.size()).doesNotHaveDuplicates();
        Set<Integer> slots = new HashSet<>();
        names.forEach(name -> slots.add(SlotHash.getSlot(name)));
        assertThat(calls).hasSize(slots.size());
    }

    @Test
    void aSingleRedisTakesTheBatchAsBeforeWhateverTheSlots() {
        List<byte[]> names = bucketNames("a", "b", "c");

        assertThat(ChargeCalls.group(names, false, 128)).containsExactly(List.of(0, 1, 2));
    }
}
