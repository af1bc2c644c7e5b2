package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.Random;
import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

class ScheduleKeysTest {

    private static final long[] EDGE_DUES = {Long.MIN_VALUE, Long.MIN_VALUE + 1, -1, 0, 1, Long.MAX_VALUE - 1,
        Long.MAX_VALUE};

    @Test
    void compareWithoutBuildingAgreesWithTheBuiltKeysOrder() {
        Random random = new Random(42);
        for (int i = 0; i < 100_000; i++) {
            long due = randomDue(random);
            byte[] recordKey = randomBytes(random, random.nextInt(4));
            Bytes other = switch (random.nextInt(4)) {
                case 0 -> ScheduleKeys.lowerBound(random.nextBoolean() ? due : randomDue(random));
                case 1 -> ScheduleKeys.of(random.nextBoolean() ? due : randomDue(random),
                        random.nextBoolean() ? recordKey : randomBytes(random, random.nextInt(4)));
                case 2 -> Bytes.wrap(randomBytes(random, random.nextInt(8))); // shorter than a due
                default -> ScheduleKeys.of(due, recordKey);
            };
            int expected = Integer.signum(Arrays.compareUnsigned(ScheduleKeys.of(due, recordKey).get(), other.get()));
            assertThat(Integer.signum(ScheduleKeys.compare(due, recordKey, other)))
                    .as("due %d, key %s against %s", due, Arrays.toString(recordKey), other)
                    .isEqualTo(expected);
        }
    }

    @Test
    void aDueRecordIsAtOrBeforeTheLowerBoundOfTheNextNanosecond() {
        byte[] key = {7};
        assertThat(ScheduleKeys.compare(100, key, ScheduleKeys.lowerBound(101))).isNegative();
        assertThat(ScheduleKeys.compare(101, key, ScheduleKeys.lowerBound(101))).isPositive();
        assertThat(ScheduleKeys.compare(101, new byte[0], ScheduleKeys.lowerBound(101))).isZero();
        assertThat(ScheduleKeys.compare(-5, key, ScheduleKeys.lowerBound(3))).isNegative();
    }

    private static long randomDue(Random random) {
        return random.nextInt(4) == 0 ? EDGE_DUES[random.nextInt(EDGE_DUES.length)]
                : random.nextBoolean() ? random.nextLong() : random.nextInt(1000) - 500;
    }

    private static byte[] randomBytes(Random random, int length) {
        byte[] bytes = new byte[length];
        for (int i = 0; i < length; i++) {
            bytes[i] = (byte) (random.nextInt(4) == 0 ? 0xff : random.nextInt(4)); // few values: many ties
        }
        return bytes;
    }
}
