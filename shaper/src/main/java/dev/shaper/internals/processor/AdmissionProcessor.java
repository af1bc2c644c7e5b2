package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionDecision;
import dev.shaper.internals.admission.AdmissionMode;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.admission.KeyAdmission;
import dev.shaper.internals.metrics.ShaperMetrics;
import dev.shaper.internals.rules.RuleBook;
import dev.shaper.internals.limits.TopicLimits;
import dev.shaper.internals.store.KeyStateStore;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The admission stage in front of the leaky bucket: a record whose admission key's token bucket has too
 * few tokens is rejected with {@link RejectReason#RATE_LIMITED} and the wait until enough exist; every other
 * record goes on to its leaky bucket.
 */
public final class AdmissionProcessor implements Processor<byte[], byte[], byte[], byte[]> {

    /**
     * @param keyHeader    the header holding the admission key, or null for the record key
     * @param keyStoreName the shaping stage's key-state store, whose slots (found by record key) keep each key's
     *                     {@link KeyAdmission} when the record key is the admission key
     * @param topicLimits   what the topics take: a record too large to be shaped is rejected before it is charged
     */
    public record Settings(String nextChild, String rejectedChild, String keyHeader, String keyStoreName,
                           TopicLimits topicLimits) {
    }

    private final Settings settings;
    private final RuleBook rules;
    private final AdmissionController admission;
    private final ShaperMetrics metrics;
    private final OutputChecks outputs;
    private final Rejections rejections;
    private ProcessorContext<byte[], byte[]> context;
    private KeyStateStore keyStates;

    public AdmissionProcessor(Settings settings, RuleBook rules, AdmissionController admission,
                              ShaperMetrics metrics) {
        this.settings = settings;
        this.rules = rules;
        this.admission = admission;
        this.metrics = metrics;
        this.outputs = new OutputChecks(settings.topicLimits(), 0); // it checks arrivals only
        this.rejections = new Rejections(settings.rejectedChild(), settings.topicLimits().rejected(),
                settings.topicLimits().rejectedTimes());
    }

    @Override
    public void init(ProcessorContext<byte[], byte[]> context) {
        this.context = context;
        keyStates = context.getStateStore(settings.keyStoreName());
    }

    @Override
    public void process(Record<byte[], byte[]> record) {
        InputChecks.Outcome checked = InputChecks.check(record);
        if (checked instanceof InputChecks.Outcome.Invalid invalid) {
            reject(record, invalid.reason(), 0, invalid.detail());
            return;
        }
        InputChecks.Outcome.Invalid unfit = outputs.whyNotShapeable(record, context.currentSystemTimeMs());
        if (unfit != null) {
            reject(record, unfit.reason(), 0, unfit.detail());
            return;
        }
        long cost = ((InputChecks.Outcome.Valid) checked).cost();
        byte[] admissionKey = record.key();
        if (settings.keyHeader() != null) {
            Header header = record.headers().lastHeader(settings.keyHeader());
            if (header == null || header.value() == null || header.value().length == 0) {
                reject(record, RejectReason.INVALID_ADMISSION_KEY, 0, "record " + (header == null
                        ? "has no header " : "has an empty header ") + settings.keyHeader()
                        + ", which holds the admission key (shaper.admission.key.header)");
                return;
            }
            admissionKey = header.value();
        }
        AdmissionRule rule = rules.admissionFor(admissionKey);
        if (rule == null) {
            context.forward(record, settings.nextChild());
            return;
        }
        if (cost > rule.burst()) {
            reject(record, RejectReason.INVALID_COST, 0, "cost " + cost + " exceeds the admission burst "
                    + rule.burst() + " of this admission key, so no wait could admit it");
            return;
        }
        AdmissionDecision decision = admission.admit(admissionKey, rule, cost, keyAdmission(admissionKey));
        if (decision.allowed()) {
            context.forward(record, settings.nextChild());
        } else {
            reject(record, RejectReason.RATE_LIMITED, decision.retryAfterMs(), String.format(java.util.Locale.ROOT,
                    "admission bucket (%s tokens/s, burst %s) holds %.2f tokens, the record costs %d",
                    rule.ratePerSecond(), rule.burst(), decision.tokensLeft(), cost));
        }
    }

    /**
     * The key's admission state, kept in the record key's slot of the key-state store (which the leaky bucket
     * looks up for the same record when admission lets it through): only when the record key is the admission
     * key, and only for batched admission on Redis, the one backend that keeps anything there, so that a rejected
     * record costs no key-state read otherwise.
     */
    private KeyAdmission keyAdmission(byte[] admissionKey) {
        if (settings.keyHeader() != null || admission.mode() != AdmissionMode.BATCHED
                || admission.backend() != AdmissionController.Backend.REDIS) {
            return null;
        }
        KeyStateStore.Slot slot = keyStates.slot(admissionKey); // valid only until the store's next call
        if (slot.attachment() instanceof KeyAdmission kept) {
            return kept;
        }
        KeyAdmission created = new KeyAdmission();
        slot.attach(created);
        return created;
    }

    private void reject(Record<byte[], byte[]> record, RejectReason reason, long retryAfterMs, String detail) {
        rejections.forward(context, record, reason, retryAfterMs, detail);
        metrics.rejected(reason);
    }
}
