package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionDecision;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.store.KeyEntry;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The admission step of the pipeline: a record that some limit of its admission key cannot admit now (a token bucket
 * with too few tokens, a window already full) is refused with {@link RejectReason#RATE_LIMITED} and the wait until
 * every limit can. The buckets are the instance's
 * {@link AdmissionController}'s, shared through Redis with the other instances.
 *
 * <p>A key whose rule is in shadow is decided on counters of its own ({@link #SHADOW_KEY_PREFIX} before its admission
 * key), so that trying a limit never takes from the limits enforced on the same key, here or in other services; its
 * refusal is {@linkplain Refusal#shadow() only reported}.
 */
final class AdmissionStep {

    /** Before the admission key of a rule in shadow: its counters, in Redis and locally, are not the enforced ones. */
    static final String SHADOW_KEY_PREFIX = "shadow:";
    private static final byte[] SHADOW_PREFIX_BYTES = SHADOW_KEY_PREFIX.getBytes(StandardCharsets.UTF_8);

    private final AdmissionController admission;
    private final RuleBook rules;
    /** The header holding the admission key, or null for the record key. */
    private final String keyHeader;

    AdmissionStep(AdmissionController admission, RuleBook rules, String keyHeader) {
        this.admission = admission;
        this.rules = rules;
        this.keyHeader = keyHeader;
    }

    /**
     * Whether the step keeps what it knows of a key in the record key's entry, so that the pipeline looks the entry up
     * before admission rather than after: only the batched mode on Redis keeps something (the key's mirror), and only
     * when the record key is the admission key. Otherwise a refused record costs no key-state lookup.
     */
    boolean usesKeyEntry() {
        return keyHeader == null && admission.mode() == AdmissionMode.BATCHED
                && admission.backend() == AdmissionController.Backend.REDIS;
    }

    /**
     * Takes {@code cost} tokens for the record's admission key; null if they were taken or no admission limit
     * applies, else why the record is refused (a {@linkplain Refusal#shadow() shadow} refusal when its rule is in
     * shadow: the record is not refused).
     *
     * @param entry the record key's entry if {@link #usesKeyEntry()}, else null
     */
    Refusal admit(Record<byte[], byte[]> record, long cost, KeyEntry entry) {
        byte[] admissionKey = record.key();
        if (keyHeader != null) {
            Header header = record.headers().lastHeader(keyHeader);
            if (header == null || header.value() == null || header.value().length == 0) {
                return new Refusal(RejectReason.INVALID_ADMISSION_KEY, "record " + (header == null
                        ? "has no header " : "has an empty header ") + keyHeader
                        + ", which holds the admission key (shaper.admission.key.header)");
            }
            admissionKey = header.value();
        }
        AdmissionPolicy policy = rules.admissionFor(admissionKey);
        if (policy == null) {
            return null;
        }
        if (policy.shadow()) {
            Refusal wouldBe = decide(shadowKey(admissionKey), policy, cost, null);
            return wouldBe == null ? null : wouldBe.inShadow();
        }
        return decide(admissionKey, policy, cost, entry);
    }

    /** The counters' key of {@code admissionKey} in shadow. */
    static byte[] shadowKey(byte[] admissionKey) {
        byte[] key = new byte[SHADOW_PREFIX_BYTES.length + admissionKey.length];
        System.arraycopy(SHADOW_PREFIX_BYTES, 0, key, 0, SHADOW_PREFIX_BYTES.length);
        System.arraycopy(admissionKey, 0, key, SHADOW_PREFIX_BYTES.length, admissionKey.length);
        return key;
    }

    private Refusal decide(byte[] admissionKey, AdmissionPolicy policy, long cost, KeyEntry entry) {
        // One token bucket is worded as before the rules could list several limits.
        AdmissionLimit bucket = policy.size() == 1 && policy.algorithm() == AdmissionAlgorithm.TOKEN_BUCKET
                ? policy.limit(0) : null;
        if (cost > policy.capacity()) {
            return new Refusal(RejectReason.INVALID_COST, bucket != null
                    ? "cost " + cost + " exceeds the admission burst " + bucket.burst() + " of this admission key, so"
                    + " no wait could admit it"
                    : "cost " + cost + " exceeds what the admission limits of this admission key (" + policy.describe()
                    + ") can ever admit at once, " + AdmissionLimit.number(policy.capacity()) + ", so no wait could"
                    + " admit it");
        }
        AdmissionDecision decision = admission.admit(admissionKey, policy, cost,
                entry == null ? null : entry.admission());
        if (decision.allowed()) {
            return null;
        }
        if (bucket != null) {
            return new Refusal(RejectReason.RATE_LIMITED, decision.retryAfterMs(), String.format(Locale.ROOT,
                    "admission bucket (%s tokens/s, burst %s) holds %.2f tokens, the record costs %d",
                    bucket.ratePerSecond(), bucket.burst(), decision.tokensLeft(), cost));
        }
        return new Refusal(RejectReason.RATE_LIMITED, decision.retryAfterMs(), String.format(Locale.ROOT,
                "admission limit %d of %d, %s %s, has %.2f left, the record costs %d", decision.limit() + 1,
                policy.size(), policy.algorithm(), policy.limit(decision.limit()).describe(policy.algorithm()),
                decision.tokensLeft(), cost));
    }
}
