package dev.shaper.internals.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.clients.admin.MemberAssignment;
import org.apache.kafka.clients.admin.MemberDescription;
import org.junit.jupiter.api.Test;

class LiveInstanceCounterTest {

    private static MemberDescription member(String clientId) {
        return new MemberDescription("member-" + clientId, Optional.empty(), clientId, "/127.0.0.1",
                new MemberAssignment(Set.of()));
    }

    @Test
    void eachClientIdPrefixIsOneInstanceWhateverItsStreamThreads() {
        // Given: two instances (Kafka Streams' default client ids hold the process id), one with two threads
        List<MemberDescription> members = List.of(
                member("app-6f1c-StreamThread-1-consumer"),
                member("app-6f1c-StreamThread-2-consumer"),
                member("app-09ab-StreamThread-1-consumer"));
        // Then: two instances
        assertThat(LiveInstanceCounter.instances(members)).isEqualTo(2);
    }

    @Test
    void instancesSharingAClientIdLookLikeOne() {
        // As the Javadoc warns: a client.id set alike on every instance hides all but one of them.
        List<MemberDescription> members = List.of(
                member("shaper-StreamThread-1-consumer"),
                member("shaper-StreamThread-1-consumer"));
        assertThat(LiveInstanceCounter.instances(members)).isEqualTo(1);
    }
}
