package dev.shaper.internals.processor;

import dev.shaper.RejectReason;
import dev.shaper.internals.admission.AdmissionController;
import dev.shaper.internals.admission.AdmissionDecision;
import dev.shaper.internals.admission.AdmissionRule;
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
     *                     admission memo when the record key is the admission key
     * @param topicLimits   what the topics take: a record too large to be shaped is rejected before it is charged
     */
    public record Settings(String nextChild, String rejectedChild, String keyHeader, String keyStoreName,
                           TopicLimits topicLimits) {
    }

    /**
     * The admission memo of one key, kept in the key's slot of the key-state store: the leaky bucket looks the
     * slot up for the same record when admission lets it through, so admission's bucket lookup rides on a lookup
     * that is paid anyway. The slot is looked up only when admission asks for the memo (batched mode on Redis):
     * in other modes a rejected record must not cost a key-state read. One adapter per processor, pointed at the
     * current record's key, so that no record allocates.
     */
    private static final class SlotMemo implements AdmissionController.KeyMemo {
        private KeyStateStore keyStates;
        private byte[] key;
        private KeyStateStore.Slot slot;

        void pointAt(byte[] recordKey) {
            key = recordKey;
            slot = null;
        }

        private KeyStateStore.Slot slot() {
            if (slot == null) {
                slot = keyStates.slot(key);
            }
            return slot;
        }

        @Override
        public Object admissionMemo() {
            return slot().attachment();
        }

        @Override
        public void admissionMemo(Object memo) {
            slot().attach(memo);
        }
    }

    private final Settings settings;
    private final RuleBook rules;
    private final AdmissionController admission;
    private final ShaperMetrics metrics;
    private final SlotMemo memo = new SlotMemo();
    private final OutputChecks outputs;
    private final Rejections rejections;
    private ProcessorContext<byte[], byte[]> context;

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
        memo.keyStates = context.getStateStore(settings.keyStoreName());
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
        // The memo lives in the record key's slot: usable only when the record key is the admission key.
        memo.pointAt(admissionKey);
        AdmissionDecision decision = admission.admit(admissionKey, rule, cost,
                settings.keyHeader() == null ? memo : null);
        memo.pointAt(null); // a slot is valid only until the store's next call
        if (decision.allowed()) {
            context.forward(record, settings.nextChild());
        } else {
            reject(record, RejectReason.RATE_LIMITED, decision.retryAfterMs(), String.format(java.util.Locale.ROOT,
                    "admission bucket (%s tokens/s, burst %s) holds %.2f tokens, the record costs %d",
                    rule.ratePerSecond(), rule.burst(), decision.tokensLeft(), cost));
        }
    }

    private void reject(Record<byte[], byte[]> record, RejectReason reason, long retryAfterMs, String detail) {
        rejections.forward(context, record, reason, retryAfterMs, detail);
        metrics.rejected(reason);
    }
}
