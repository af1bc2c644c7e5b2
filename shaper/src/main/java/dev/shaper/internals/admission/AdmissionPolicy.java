package dev.shaper.internals.admission;

import java.util.List;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * The admission of one key: an algorithm and one or more limits that must all allow a record. Built once per rule,
 * so what each decision needs is computed here rather than per record: the most a record may cost, the Redis
 * script's arguments, and the local fallback's share.
 *
 * <p>Every policy, one token bucket as much as several windows, takes the same path: one Redis script call per
 * decision for all of the key's limits, atomic (every limit is charged or none), and a refusal's retry-after is the
 * longest wait among the refusing limits. See docs/admission.md, "Several limits per key".
 */
public final class AdmissionPolicy {

    private final AdmissionAlgorithm algorithm;
    private final List<AdmissionLimit> limits;
    private final AdmissionLimit[] limitArray;
    private final double capacity;
    /** True for a rule in shadow: decided on counters of their own, reported, and never refusing a record. */
    private final boolean shadow;
    /** The script's limit arguments (rates or maxima, bursts or windows), formatted at first use. */
    private volatile byte[][] scriptArgs;
    /** The last share asked for: the local fallback asks per record, and the count of instances rarely changes. */
    private volatile Share lastShare;
    /** The last share raised to a record's cost (a cost above a limit's share of the capacity): rare. */
    private volatile Share lastRaised;

    private record Share(int instances, double minCapacity, AdmissionPolicy policy) {
    }

    /**
     * @throws IllegalArgumentException with no limit, or with limits the algorithm cannot count together ({@link
     *                                  AdmissionAlgorithm#check}: e.g. two windows of the same period)
     */
    public AdmissionPolicy(AdmissionAlgorithm algorithm, List<AdmissionLimit> limits) {
        this(algorithm, limits, false);
    }

    private AdmissionPolicy(AdmissionAlgorithm algorithm, List<AdmissionLimit> limits, boolean shadow) {
        this.shadow = shadow;
        this.algorithm = Objects.requireNonNull(algorithm, "algorithm");
        this.limits = List.copyOf(limits);
        if (this.limits.isEmpty()) {
            throw new IllegalArgumentException("an admission policy needs at least one limit");
        }
        this.limitArray = this.limits.toArray(new AdmissionLimit[0]);
        algorithm.check(this.limits);
        double least = Double.POSITIVE_INFINITY;
        for (AdmissionLimit limit : limitArray) {
            least = Math.min(least, limit.burst());
        }
        this.capacity = least;
    }

    /** One token bucket of {@code rule}'s rate per second and burst: a rule's {@code admission.rate} and burst. */
    public static AdmissionPolicy of(AdmissionRule rule) {
        return new AdmissionPolicy(AdmissionAlgorithm.TOKEN_BUCKET, List.of(AdmissionLimit.of(rule)));
    }

    /** One limit of {@code amount} per {@code periodMillis} under {@code algorithm}, of burst {@code amount}. */
    public static AdmissionPolicy of(AdmissionAlgorithm algorithm, double amount, long periodMillis) {
        return new AdmissionPolicy(algorithm, List.of(new AdmissionLimit(amount, periodMillis,
                algorithm.hasBurst() ? AdmissionRule.defaultBurst(amount) : amount)));
    }

    public AdmissionAlgorithm algorithm() {
        return algorithm;
    }

    public List<AdmissionLimit> limits() {
        return limits;
    }

    /** How many limits. */
    public int size() {
        return limitArray.length;
    }

    /** The {@code i}-th limit. */
    public AdmissionLimit limit(int i) {
        return limitArray[i];
    }

    /** The most one record may cost: the smallest burst (token bucket) or window amount. A dearer one never fits. */
    public double capacity() {
        return capacity;
    }

    /**
     * The same amounts and periods under another algorithm (a rule that names only {@code admission.algorithm}): a
     * window's burst is its amount, a token bucket's the default (one period's amount, at least 1).
     *
     * @throws IllegalArgumentException for a window algorithm and an amount below 1
     */
    public AdmissionPolicy withAlgorithm(AdmissionAlgorithm other) {
        if (other == algorithm) {
            return this;
        }
        return new AdmissionPolicy(other, limits.stream()
                .map(l -> new AdmissionLimit(l.amount(), l.periodMillis(),
                        other.hasBurst() ? AdmissionRule.defaultBurst(l.amount()) : l.amount()))
                .toList(), shadow);
    }

    /** True for a rule in shadow ({@code mode: shadow} or {@code shaper.mode=shadow}). */
    public boolean shadow() {
        return shadow;
    }

    /** The same limits in shadow ({@code true}) or enforced. */
    public AdmissionPolicy withShadow(boolean inShadow) {
        return inShadow == shadow ? this : new AdmissionPolicy(algorithm, limits, inShadow);
    }

    /**
     * This policy divided among {@code instances}, each limit's capacity at least {@code minCapacity} (a record the
     * shared limits could admit must stay admissible in an outage). Remembered: asked per record in the fallback.
     */
    AdmissionPolicy share(int instances, double minCapacity) {
        Share last = lastShare;
        if (last == null || last.instances != instances) {
            last = new Share(instances, 1, divided(instances, 1));
            lastShare = last;
        }
        if (last.policy.capacity >= minCapacity) {
            return last.policy;
        }
        Share raised = lastRaised;
        if (raised == null || raised.instances != instances || raised.minCapacity != minCapacity) {
            raised = new Share(instances, minCapacity, divided(instances, minCapacity));
            lastRaised = raised;
        }
        return raised.policy;
    }

    private AdmissionPolicy divided(int instances, double minCapacity) {
        return new AdmissionPolicy(algorithm, limits.stream()
                .map(l -> algorithm.share(l, instances, minCapacity)).toList());
    }

    /**
     * The script's two limit arguments ({@link AdmissionAlgorithm#limitArgs}): a number each, comma-separated for
     * several limits. Formatted once.
     */
    byte[][] scriptArgs() {
        byte[][] args = scriptArgs;
        if (args == null) {
            args = LimitScript.limitArgs(this);
            scriptArgs = args;
        }
        return args;
    }

    /** E.g. {@code sliding-window 10 per 1s, 10000 per 1h}. */
    public String describe() {
        return algorithm + " " + limits.stream().map(l -> l.describe(algorithm)).collect(Collectors.joining(", "));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof AdmissionPolicy p && p.algorithm.equals(algorithm) && p.limits.equals(limits)
                && p.shadow == shadow;
    }

    @Override
    public int hashCode() {
        return (algorithm.hashCode() * 31 + limits.hashCode()) * 2 + (shadow ? 1 : 0);
    }

    @Override
    public String toString() {
        return "AdmissionPolicy[" + describe() + (shadow ? ", shadow" : "") + "]";
    }
}
