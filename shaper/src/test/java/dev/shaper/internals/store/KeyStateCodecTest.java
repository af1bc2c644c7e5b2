package dev.shaper.internals.store;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shaper.internals.shaping.KeyState;
import java.nio.ByteBuffer;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A key state keeps its band while records are queued, and reads the same to a reader that does not know bands. */
class KeyStateCodecTest {

    private static final KeyState QUEUED = new KeyState(1_000, 3, 7, 420, 900);

    @Test
    void shouldKeepTheBandOfAQueuedKey() {
        byte[] encoded = KeyStateCodec.encode(QUEUED, new ScheduleBand(2, 0.5));

        assertThat(KeyStateCodec.decode(encoded)).isEqualTo(QUEUED);
        assertThat(KeyStateCodec.band(encoded)).isEqualTo(new ScheduleBand(2, 0.5));
        assertThat(KeyStateCodec.band(KeyStateCodec.encode(QUEUED, ScheduleBand.DEFAULT)))
                .isSameAs(ScheduleBand.DEFAULT);
    }

    @Test
    void shouldWriteNoBandForAKeyWithNothingQueued() {
        KeyState idle = new KeyState(1_000, 0, 0, 0, 900);

        byte[] encoded = KeyStateCodec.encode(idle, new ScheduleBand(2, 0.5));

        assertThat(encoded).hasSize(37);
        assertThat(KeyStateCodec.band(encoded)).isNull();
    }

    @Test
    void shouldReadAStateWrittenBeforeBandsWereKeptAsOneWhoseBandIsUnknown() {
        // The layout of the releases before this one, written by hand.
        byte[] old = ByteBuffer.allocate(37).put((byte) 1).putLong(1_000).putInt(3).putLong(7).putLong(420)
                .putLong(900).array();

        assertThat(KeyStateCodec.decode(old)).isEqualTo(QUEUED);
        assertThat(KeyStateCodec.band(old)).isNull();
    }

    @Test
    void shouldLeaveTheStateWhereAReaderThatDoesNotKnowBandsReadsIt() {
        byte[] encoded = KeyStateCodec.encode(QUEUED, new ScheduleBand(2, 0.5));

        // An earlier release reads the first 37 bytes and ignores the rest: a roll-back keeps the queues.
        assertThat(Arrays.copyOf(encoded, 37)).isEqualTo(KeyStateCodec.encode(QUEUED));
        assertThat(KeyStateCodec.decode(Arrays.copyOf(encoded, 37))).isEqualTo(QUEUED);
    }
}
