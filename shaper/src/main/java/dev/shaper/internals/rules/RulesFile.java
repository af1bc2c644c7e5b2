package dev.shaper.internals.rules;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.exc.StreamReadException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import dev.shaper.ShaperConfig;
import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionLimit;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.admission.AdmissionRule;
import dev.shaper.internals.shaping.ShapingRule;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.config.ConfigException;
import org.yaml.snakeyaml.LoaderOptions;

/**
 * Reads a rules file (YAML, or JSON, which is YAML too) into a {@link RuleBook}. Shape:
 *
 * <pre>
 * rules:
 *   - exact: "tenant-42"      # or prefix:, glob: ("*" and "?") or regex: (whole key)
 *     rate: 10                # units per second; any field left out takes the shaper's default
 *     max.queue: 500
 *     max.delay.ms: 30000
 *     priority: 0             # when the total rate binds, 0 goes first, then 1, ... (default 0)
 *     weight: 1               # within a priority, keys share the total rate by weight x rate (default 1)
 *     admission.rate: 50      # the admission token bucket of this key (see shaper.admission.*)
 *     admission.burst: 100
 *     mode: shadow            # or enforce (the default): decide and report, but let every record pass at once
 *   - prefix: "api-"
 *     admission.algorithm: sliding-window   # or token-bucket, fixed-window (default shaper.admission.algorithm)
 *     admission.limits:       # several limits that must all allow a record (instead of admission.rate/burst)
 *       - {rate: 10, per: 1s}            # per: a whole number and ms, s, m, h, d or y (365 d); default 1s
 *       - {rate: 10000, per: 1h}         # burst: token bucket only, default rate (one period's worth)
 * </pre>
 *
 * <p>Every mistake stops the start with a message that names the file, the rule and the field.
 */
public final class RulesFile {

    /** One rule as written. Exactly one matcher field must be set. */
    record RuleSpec(
            @JsonProperty("exact") String exact,
            @JsonProperty("prefix") String prefix,
            @JsonProperty("glob") String glob,
            @JsonProperty("regex") String regex,
            @JsonProperty("rate") Double rate,
            @JsonProperty("max.queue") Integer maxQueue,
            @JsonProperty("max.delay.ms") Long maxDelayMs,
            @JsonProperty("priority") Integer priority,
            @JsonProperty("weight") Double weight,
            @JsonProperty("admission.rate") Double admissionRate,
            @JsonProperty("admission.burst") Double admissionBurst,
            @JsonProperty("admission.algorithm") String admissionAlgorithm,
            @JsonProperty("admission.limits") List<LimitSpec> admissionLimits,
            @JsonProperty("mode") String mode) {
    }

    /** One of a rule's admission.limits as written. */
    record LimitSpec(
            @JsonProperty("rate") Double rate,
            @JsonProperty("per") String per,
            @JsonProperty("burst") Double burst) {
    }

    /** The whole file; each entry is read by {@link #ruleFrom}, as a rule of the rules topic is. */
    record FileSpec(@JsonProperty("rules") List<JsonNode> rules) {
    }

    /** The fields a rule may have, for error messages. */
    static final String RULE_FIELDS = "one of exact, prefix, glob, regex and optional rate, max.queue, max.delay.ms,"
            + " priority, weight, admission.rate, admission.burst, admission.algorithm, admission.limits (each limit"
            + " with rate, per, burst), mode";

    /** The value of a rule's {@code mode} that puts it in shadow; {@code enforce} is the default. */
    public static final String MODE_SHADOW = ShaperConfig.MODE_SHADOW;
    /** The value of a rule's {@code mode} that enforces it: the default. */
    public static final String MODE_ENFORCE = ShaperConfig.MODE_ENFORCE;

    /**
     * The most characters a rules file may hold, 3 MiB (about 100,000 one-line rules): a larger set of rules belongs
     * on the rules topic, where each record is one rule.
     */
    public static final int MAX_FILE_CHARS = 3 * 1024 * 1024;

    // A field given twice is refused, as on the rules topic: the last value winning silently hides a typo.
    private static final ObjectMapper MAPPER = new ObjectMapper(YAMLFactory.builder()
            .loaderOptions(loaderOptions()).build())
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
            .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
            .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT);

    private RulesFile() {
    }

    /** The YAML parser's own limit, above {@link #MAX_FILE_CHARS}, which is checked first with a clearer message. */
    private static LoaderOptions loaderOptions() {
        LoaderOptions options = new LoaderOptions();
        options.setCodePointLimit(MAX_FILE_CHARS + 1);
        return options;
    }

    /**
     * The rules {@code config} names: its rules file ({@code shaper.rules.file}) over its default rules, or the
     * defaults alone when no file is set.
     */
    public static RuleBook forConfig(ShaperConfig config) {
        return new RuleBook(LiveRules.fixed(ruleSetFor(config)));
    }

    /**
     * The version of the rules {@code config} names, as {@link #forConfig}, to build on (the rules topic); all in
     * shadow under {@code shaper.mode=shadow}.
     */
    public static RuleSet ruleSetFor(ShaperConfig config) {
        RuleSet rules = fileRuleSet(config);
        return config.allInShadow() ? rules.allInShadow() : rules;
    }

    private static RuleSet fileRuleSet(ShaperConfig config) {
        if (config.rulesFile().isBlank()) {
            return new RuleSet(config.defaultShapingRule(), config.defaultAdmission(), config.admissionAlgorithm(),
                    List.of());
        }
        Path file = Path.of(config.rulesFile());
        if (!Files.isReadable(file)) {
            throw new ConfigException(ShaperConfig.RULES_FILE_CONFIG, config.rulesFile(),
                    "expected the path of a readable YAML or JSON rules file");
        }
        return load(file, config.defaultShapingRule(), config.defaultAdmission(), config.admissionAlgorithm())
                .version();
    }

    /** Reads {@code file}; the defaults fill every field a rule leaves out. */
    public static RuleBook load(Path file, ShapingRule defaults) {
        return load(file, defaults, null, AdmissionAlgorithm.TOKEN_BUCKET);
    }

    /**
     * Reads {@code file}; the defaults fill every field a rule leaves out.
     *
     * @param defaultAdmission the admission of keys whose rule sets none; null for no admission limit
     * @param defaultAlgorithm the algorithm of rules that set admission limits but no admission.algorithm
     */
    public static RuleBook load(Path file, ShapingRule defaults, AdmissionPolicy defaultAdmission,
                                AdmissionAlgorithm defaultAlgorithm) {
        String text;
        try {
            text = Files.readString(file);
        } catch (IOException e) {
            throw new RulesFileException(file + ": cannot be read (" + e + ")");
        }
        return parse(file.toString(), text, defaults, defaultAdmission, defaultAlgorithm);
    }

    static RuleBook parse(String source, String text, ShapingRule defaults) {
        return parse(source, text, defaults, null);
    }

    static RuleBook parse(String source, String text, ShapingRule defaults, AdmissionPolicy defaultAdmission) {
        return parse(source, text, defaults, defaultAdmission,
                defaultAdmission != null ? defaultAdmission.algorithm() : AdmissionAlgorithm.TOKEN_BUCKET);
    }

    static RuleBook parse(String source, String text, ShapingRule defaults, AdmissionPolicy defaultAdmission,
                          AdmissionAlgorithm defaultAlgorithm) {
        if (text.length() > MAX_FILE_CHARS) {
            throw new RulesFileException(source + ": " + text.length() + " characters; a rules file holds at most "
                    + MAX_FILE_CHARS + " (put a larger set of rules on the rules topic)");
        }
        FileSpec spec;
        try {
            spec = text.isBlank() ? new FileSpec(List.of()) : MAPPER.readValue(text, FileSpec.class);
        } catch (StreamReadException e) {
            throw new RulesFileException(source + ": not valid YAML or JSON: " + e.getOriginalMessage());
        } catch (JsonMappingException e) {
            if (e.getCause() instanceof StreamReadException syntax) {
                throw new RulesFileException(source + ": not valid YAML or JSON: " + syntax.getOriginalMessage());
            }
            throw new RulesFileException(source + ": " + describePath(e) + e.getOriginalMessage()
                    + "; expected a list 'rules' of entries with " + RULE_FIELDS);
        } catch (JacksonException e) {
            throw new RulesFileException(source + ": not valid YAML or JSON: " + e.getOriginalMessage());
        }
        if (spec == null || spec.rules() == null) {
            throw new RulesFileException(source + ": expected a top-level list 'rules'");
        }
        List<KeyRule> rules = new ArrayList<>();
        for (int i = 0; i < spec.rules().size(); i++) {
            rules.add(ruleFrom(source + ": rules[" + i + "]", spec.rules().get(i), defaults, defaultAdmission,
                    defaultAlgorithm));
        }
        return new RuleBook(LiveRules.fixed(new RuleSet(defaults, defaultAdmission, defaultAlgorithm, rules)));
    }

    /**
     * One rule from its YAML or JSON form: an entry of a rules file, or the value of a rules topic's record without
     * its {@code order}. Any field left out takes the default.
     *
     * @param where names the rule in an error message, e.g. {@code "rules.yaml: rules[2]"}
     * @param defaultAdmission the admission of a rule that sets none; null for no admission limit
     * @param defaultAlgorithm the algorithm of a rule that sets admission limits but no admission.algorithm
     * @throws RulesFileException naming {@code where}, the field and what is expected
     */
    static KeyRule ruleFrom(String where, JsonNode node, ShapingRule defaults, AdmissionPolicy defaultAdmission,
                            AdmissionAlgorithm defaultAlgorithm) {
        if (node == null || node.isNull()) {
            return toRule(where, null, defaults, defaultAdmission, defaultAlgorithm);
        }
        RuleSpec spec;
        try {
            spec = MAPPER.treeToValue(node, RuleSpec.class);
        } catch (JsonMappingException e) {
            String path = describePath(e);
            throw new RulesFileException(where + (path.isEmpty() ? ": " : "." + path) + e.getOriginalMessage()
                    + "; expected a rule with " + RULE_FIELDS);
        } catch (JacksonException e) {
            throw new RulesFileException(where + ": " + e.getOriginalMessage());
        }
        return toRule(where, spec, defaults, defaultAdmission, defaultAlgorithm);
    }

    private static KeyRule toRule(String where, RuleSpec spec, ShapingRule defaults, AdmissionPolicy defaultAdmission,
                                  AdmissionAlgorithm defaultAlgorithm) {
        if (spec == null) {
            throw new RulesFileException(where + ": empty entry; expected one of exact, prefix, glob, regex");
        }
        int matchers = count(spec.exact()) + count(spec.prefix()) + count(spec.glob()) + count(spec.regex());
        if (matchers != 1) {
            throw new RulesFileException(where + ": has " + matchers
                    + " matchers; expected exactly one of exact, prefix, glob, regex");
        }
        KeyMatcher matcher;
        if (spec.exact() != null) {
            matcher = new KeyMatcher.Exact(spec.exact());
        } else if (spec.prefix() != null) {
            matcher = new KeyMatcher.Prefix(spec.prefix());
        } else if (spec.glob() != null) {
            matcher = KeyMatcher.Glob.of(spec.glob());
        } else {
            try {
                matcher = new KeyMatcher.Regex(Pattern.compile(spec.regex()));
            } catch (PatternSyntaxException e) {
                throw new RulesFileException(where + ": regex \"" + spec.regex()
                        + "\" is not a valid regular expression: " + e.getDescription());
            }
        }
        double rate = spec.rate() != null ? spec.rate() : defaults.ratePerSecond();
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw new RulesFileException(where + ": rate is " + spec.rate()
                    + "; expected a number of units per second > 0");
        }
        int maxQueue = spec.maxQueue() != null ? spec.maxQueue() : defaults.maxQueue();
        if (maxQueue < 0) {
            throw new RulesFileException(where + ": max.queue is " + maxQueue + "; expected a whole number >= 0");
        }
        long maxDelayMs = spec.maxDelayMs() != null ? spec.maxDelayMs() : defaults.maxDelayMs();
        if (maxDelayMs < 0) {
            throw new RulesFileException(where + ": max.delay.ms is " + maxDelayMs
                    + "; expected a whole number of milliseconds >= 0");
        }
        int priority = spec.priority() != null ? spec.priority() : defaults.priority();
        if (priority < 0 || priority > ShapingRule.LOWEST_PRIORITY) {
            throw new RulesFileException(where + ": priority is " + priority + "; expected a whole number from 0"
                    + " (the highest) to " + ShapingRule.LOWEST_PRIORITY);
        }
        double weight = spec.weight() != null ? spec.weight() : defaults.weight();
        if (!(weight > 0) || Double.isInfinite(weight)) {
            throw new RulesFileException(where + ": weight is " + weight + "; expected a number > 0");
        }
        boolean shadow = shadow(where, spec.mode());
        AdmissionPolicy admission = toAdmission(where, spec, defaultAdmission, defaultAlgorithm);
        if (shadow && admission == null && defaultAdmission != null) {
            admission = defaultAdmission; // the default limits, decided in shadow for this rule's keys
        }
        return new KeyRule(matcher, new ShapingRule(rate, maxQueue, maxDelayMs, priority, weight, shadow),
                admission == null ? null : admission.withShadow(shadow));
    }

    /** Whether a rule's {@code mode} puts it in shadow. */
    private static boolean shadow(String where, String mode) {
        if (mode == null || mode.equals(MODE_ENFORCE)) {
            return false;
        }
        if (mode.equals(MODE_SHADOW)) {
            return true;
        }
        throw new RulesFileException(where + ": mode is \"" + mode + "\"; expected " + MODE_ENFORCE + " (the default)"
                + " or " + MODE_SHADOW);
    }

    /**
     * The rule's own admission, or null when it sets none (the default applies): {@code admission.rate} and {@code
     * admission.burst} are one token bucket per second (or one window of a second), {@code admission.limits} any
     * number of limits, {@code admission.algorithm} alone the default's limits under another algorithm.
     */
    private static AdmissionPolicy toAdmission(String where, RuleSpec spec, AdmissionPolicy defaultAdmission,
                                               AdmissionAlgorithm defaultAlgorithm) {
        boolean single = spec.admissionRate() != null || spec.admissionBurst() != null;
        boolean several = spec.admissionLimits() != null;
        if (!single && !several && spec.admissionAlgorithm() == null) {
            return null;
        }
        if (single && several) {
            throw new RulesFileException(where + ": sets admission.limits and admission."
                    + (spec.admissionRate() != null ? "rate" : "burst") + "; expected one of them: admission.rate and admission.burst are one limit,"
                    + " admission.limits lists any number");
        }
        AdmissionAlgorithm algorithm = defaultAlgorithm;
        if (spec.admissionAlgorithm() != null) {
            algorithm = AdmissionAlgorithm.of(spec.admissionAlgorithm());
            if (algorithm == null) {
                throw new RulesFileException(where + ": admission.algorithm is \"" + spec.admissionAlgorithm()
                        + "\"; expected " + AdmissionAlgorithm.names());
            }
        }
        if (several) {
            return new AdmissionPolicy(algorithm, toLimits(where, spec.admissionLimits(), algorithm));
        }
        if (single) {
            return new AdmissionPolicy(algorithm, List.of(toSingleLimit(where, spec, defaultAdmission, algorithm)));
        }
        if (defaultAdmission == null) {
            throw new RulesFileException(where + ": admission.algorithm is set but there is no admission rate; set"
                    + " admission.rate or admission.limits in this rule, or shaper.admission.rate");
        }
        try {
            return defaultAdmission.withAlgorithm(algorithm);
        } catch (IllegalArgumentException e) {
            throw new RulesFileException(where + ": admission.algorithm is " + algorithm + ", but the default"
                    + " admission rate " + defaultAdmission.limit(0).amount() + " is below 1, and a window admits"
                    + " whole units; set admission.rate or admission.limits in this rule");
        }
    }

    /** {@code admission.rate} and {@code admission.burst}: one limit per second, with the default's fields. */
    private static AdmissionLimit toSingleLimit(String where, RuleSpec spec, AdmissionPolicy defaultAdmission,
                                                AdmissionAlgorithm algorithm) {
        AdmissionLimit fallback = defaultAdmission != null && defaultAdmission.limit(0).periodMillis() == 1000
                ? defaultAdmission.limit(0) : null;
        Double rate = spec.admissionRate() != null ? spec.admissionRate()
                : fallback != null ? fallback.amount() : null;
        if (rate == null) {
            throw new RulesFileException(where + ": admission.burst is set but there is no admission rate; set"
                    + " admission.rate in this rule or shaper.admission.rate");
        }
        if (!(rate > 0) || Double.isInfinite(rate)) {
            throw new RulesFileException(where + ": admission.rate is " + rate
                    + "; expected a number of tokens per second > 0");
        }
        if (!algorithm.hasBurst()) {
            if (spec.admissionBurst() != null) {
                throw new RulesFileException(where + ": admission.burst is set, but a " + algorithm + " limit has no"
                        + " burst: it admits at most admission.rate per window of a second");
            }
            if (rate < 1) {
                throw new RulesFileException(where + ": admission.rate is " + rate + "; a " + algorithm + " limit"
                        + " admits at most that many units per window of a second: expected a number >= 1");
            }
            return new AdmissionLimit(rate, 1000, rate);
        }
        double burst = spec.admissionBurst() != null ? spec.admissionBurst()
                : spec.admissionRate() == null && fallback != null ? fallback.burst()
                : AdmissionRule.defaultBurst(rate);
        if (!(burst >= 1) || Double.isInfinite(burst)) {
            throw new RulesFileException(where + ": admission.burst is " + burst + "; expected a number of tokens >= 1");
        }
        return new AdmissionLimit(rate, 1000, burst);
    }

    /** {@code admission.limits}: each limit's rate, period and (token bucket only) burst. */
    private static List<AdmissionLimit> toLimits(String where, List<LimitSpec> specs, AdmissionAlgorithm algorithm) {
        if (specs.isEmpty()) {
            throw new RulesFileException(where + ": admission.limits is empty; expected at least one limit, e.g."
                    + " {rate: 10, per: 1s}");
        }
        List<AdmissionLimit> limits = new ArrayList<>();
        for (int i = 0; i < specs.size(); i++) {
            String field = where + ": admission.limits[" + i + "]";
            LimitSpec spec = specs.get(i);
            if (spec == null) {
                throw new RulesFileException(field + " is empty; expected a limit {rate, per, burst}, e.g. {rate: 10,"
                        + " per: 1s}");
            }
            Double rate = spec.rate();
            if (rate == null) {
                throw new RulesFileException(field + ".rate is missing; expected the number of units per period");
            }
            if (!(rate > 0) || Double.isInfinite(rate)) {
                throw new RulesFileException(field + ".rate is " + rate
                        + "; expected a number of units per period > 0");
            }
            long period = spec.per() == null ? 1000 : AdmissionLimit.parsePeriodMillis(spec.per());
            if (period < 0) {
                throw new RulesFileException(field + ".per is \"" + spec.per() + "\"; expected a whole number and a"
                        + " unit, ms, s, m, h, d or y (365 days), e.g. 100ms, 1s, 1h");
            }
            if (period == 0) {
                throw new RulesFileException(field + ".per is " + spec.per() + "; expected from 1ms to 365d");
            }
            if (!algorithm.hasBurst()) {
                if (spec.burst() != null) {
                    throw new RulesFileException(field + ".burst is set, but a " + algorithm + " limit has no burst:"
                            + " it admits at most rate units per window of length per");
                }
                if (rate < 1) {
                    throw new RulesFileException(field + ".rate is " + rate + "; a " + algorithm + " limit admits at"
                            + " most rate units per window: expected a number >= 1");
                }
                for (int j = 0; j < i; j++) {
                    if (limits.get(j).periodMillis() == period) {
                        throw new RulesFileException(field + ".per is " + AdmissionLimit.formatPeriod(period)
                                + ", as admission.limits[" + j + "].per; a " + algorithm + " rule counts each window"
                                + " length once: keep the limit with the lower rate");
                    }
                }
                limits.add(new AdmissionLimit(rate, period, rate));
            } else {
                double burst = spec.burst() != null ? spec.burst() : AdmissionRule.defaultBurst(rate);
                if (!(burst >= 1) || Double.isInfinite(burst)) {
                    throw new RulesFileException(field + ".burst is " + burst + "; expected a number of tokens >= 1");
                }
                limits.add(new AdmissionLimit(rate, period, burst));
            }
        }
        return limits;
    }

    private static int count(String s) {
        return s == null ? 0 : 1;
    }

    private static String describePath(JsonMappingException e) {
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference ref : e.getPath()) {
            if (ref.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(ref.getFieldName());
            } else if (ref.getIndex() >= 0) {
                path.append('[').append(ref.getIndex()).append(']');
            }
        }
        return path.length() == 0 ? "" : path + ": ";
    }

    /** A rules file that cannot be used; the message says where and what is expected. */
    public static final class RulesFileException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public RulesFileException(String message) {
            super(message);
        }
    }
}
