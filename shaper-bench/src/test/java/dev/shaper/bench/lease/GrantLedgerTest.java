package dev.shaper.bench.lease;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

class GrantLedgerTest {

    @Test
    void shouldKeepTheHighestSumOfEveryInstantUntilTaken() {
        // Given: two instances whose rates move one after the other
        GrantLedger ledger = new GrantLedger(2);
        ledger.set(0, 60);
        ledger.set(1, 50);   // 110 for an instant
        ledger.set(0, 40);   // 90

        // Then: the brief 110 is what counts, and the next phase starts from the sum now
        assertThat(ledger.takeHighestSum()).isCloseTo(110, within(1e-9));
        assertThat(ledger.takeHighestSum()).isCloseTo(90, within(1e-9));
        assertThat(ledger.rates()).containsExactly(40, 50);
    }
}
