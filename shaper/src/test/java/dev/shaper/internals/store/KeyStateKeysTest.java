package dev.shaper.internals.store;

import static dev.shaper.internals.store.KeyStateFixtures.k;
import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.utils.Bytes;
import org.junit.jupiter.api.Test;

class KeyStateKeysTest {

    @Test
    void shouldPrefixStatesWithOneAndKeepTheClockAtZero() {
        // The changelog's keys: changing them would orphan every stored state
        assertThat(KeyStateKeys.of(k("ab")).get()).containsExactly(1, 'a', 'b');
        assertThat(KeyStateKeys.CLOCK.get()).containsExactly(0);
        assertThat(KeyStateKeys.CLOCK.compareTo(KeyStateKeys.of(new byte[0]))).isNegative();
        assertThat(KeyStateKeys.isClock(KeyStateKeys.CLOCK)).isTrue();
        assertThat(KeyStateKeys.isClock(KeyStateKeys.of(new byte[0]))).isFalse();
    }

    @Test
    void shouldGiveTheRecordKeyBack() {
        assertThat(KeyStateKeys.recordKey(KeyStateKeys.of(k("ab")))).isEqualTo(Bytes.wrap(k("ab")));
        assertThat(KeyStateKeys.recordKey(KeyStateKeys.of(new byte[0]))).isEqualTo(Bytes.wrap(new byte[0]));
    }

    @Test
    void shouldResumeRightAfterAKeyAndBeforeTheKeysThatExtendIt() {
        Bytes a = KeyStateKeys.of(k("a"));
        Bytes next = KeyStateKeys.successor(a);
        assertThat(next.compareTo(a)).isPositive();
        assertThat(next.compareTo(KeyStateKeys.of(new byte[] {'a', 0}))).isZero();
        assertThat(next.compareTo(KeyStateKeys.of(k("ab")))).isNegative();
        // A last byte of 0xff carries nothing over: "\xff\x01" is still ahead
        Bytes ff = KeyStateKeys.of(new byte[] {(byte) 0xff});
        assertThat(KeyStateKeys.successor(ff).compareTo(KeyStateKeys.of(new byte[] {(byte) 0xff, 1}))).isNegative();
    }
}
