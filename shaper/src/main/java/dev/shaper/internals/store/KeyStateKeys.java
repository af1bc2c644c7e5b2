package dev.shaper.internals.store;

import java.util.Arrays;
import org.apache.kafka.common.utils.Bytes;

/**
 * Keys of the key-state store: {@code 0x01 + record key} for a key's state, and the single key {@code 0x00} for the
 * task's virtual time, which sorts before every state.
 */
final class KeyStateKeys {

    /** The key of the task's virtual time. */
    static final Bytes CLOCK = Bytes.wrap(new byte[] {0});
    private static final byte STATE_PREFIX = 1;

    private KeyStateKeys() {
    }

    /** The store key of {@code recordKey}'s state. */
    static Bytes of(byte[] recordKey) {
        byte[] key = new byte[recordKey.length + 1];
        key[0] = STATE_PREFIX;
        System.arraycopy(recordKey, 0, key, 1, recordKey.length);
        return Bytes.wrap(key);
    }

    /** The record key of a state's store key (a copy). */
    static Bytes recordKey(Bytes storeKey) {
        byte[] raw = storeKey.get();
        return Bytes.wrap(Arrays.copyOfRange(raw, 1, raw.length));
    }

    static boolean isClock(Bytes storeKey) {
        return storeKey.equals(CLOCK);
    }

    /**
     * The least key after {@code key}, where a scan that stopped at {@code key} resumes: {@code key} and a zero byte.
     * Not {@link Bytes#increment}, which also skips every longer key that starts with {@code key} ("ab" after "a").
     */
    static Bytes successor(Bytes key) {
        return Bytes.wrap(Arrays.copyOf(key.get(), key.get().length + 1));
    }
}
