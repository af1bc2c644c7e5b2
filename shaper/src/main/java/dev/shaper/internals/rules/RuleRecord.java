package dev.shaper.internals.rules;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shaper.internals.admission.AdmissionAlgorithm;
import dev.shaper.internals.admission.AdmissionPolicy;
import dev.shaper.internals.shaping.ShapingRule;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * One record of the rules topic ({@code shaper.rules.topic}): the key is the rule's id (UTF-8 text), the value one rule
 * as a JSON object with the fields of a rules-file entry plus {@code order} (a whole number, 0 if left out: rules of
 * a lower order are matched first, ties by id); a null value deletes the rule. A record is taken whole or refused
 * whole: {@link #parse} checks everything a rule of the rules file is checked for, and more (a JSON object, no field
 * twice, nothing after it).
 */
public final class RuleRecord {

    /** The field of a rule record that a rules-file entry does not have. */
    public static final String ORDER_FIELD = "order";
    /** The longest rule id, in characters: ids name rules in logs and in the command's listing. */
    public static final int MAX_ID_LENGTH = 200;

    private static final ObjectMapper JSON = new ObjectMapper()
            .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION)
            .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    /** What a record does to the rules. */
    public sealed interface Change {
        /** The rule's id: the record key. */
        String id();
    }

    /**
     * Sets the rule {@code id}.
     *
     * @param order  lower is matched first; rules of one order by id
     * @param json   the record's value as published, for listings
     * @param fields the rule's fields as parsed, without the order
     */
    public record Put(String id, int order, KeyRule rule, String json, JsonNode fields) implements Change {

        /** Whether {@code other} sets the same rule: the same order and fields, however the JSON was spaced. */
        public boolean sameAs(Put other) {
            return other != null && order == other.order && fields.equals(other.fields);
        }
    }

    /** Deletes the rule {@code id} (a null value). */
    public record Delete(String id) implements Change {
    }

    /** A record that cannot be applied; the message names the rule id, the field and what is expected. */
    public static final class InvalidRuleException extends Exception {
        private static final long serialVersionUID = 1L;
        private final String id;

        InvalidRuleException(String id, String message) {
            super(message);
            this.id = id;
        }

        /** The id the record names, or null when its key is not one. */
        public String id() {
            return id;
        }
    }

    private RuleRecord() {
    }

    /**
     * What the record with this key and value does.
     *
     * @param defaults         fill every field the rule leaves out
     * @param defaultAdmission the admission of a rule that sets none; null for no admission limit. Its algorithm
     *                         (token-bucket without one) is that of a rule that sets limits but no algorithm.
     */
    public static Change parse(byte[] key, byte[] value, ShapingRule defaults, AdmissionPolicy defaultAdmission)
            throws InvalidRuleException {
        return parse(key, value, defaults, defaultAdmission,
                defaultAdmission != null ? defaultAdmission.algorithm() : AdmissionAlgorithm.TOKEN_BUCKET);
    }

    /** What the record does, checked against the defaults of {@code base}, as the shaper that reads it will. */
    public static Change parse(byte[] key, byte[] value, RuleSet base) throws InvalidRuleException {
        return parse(key, value, base.defaults(), base.defaultAdmission(), base.defaultAlgorithm());
    }

    /**
     * What the record with this key and value does.
     *
     * @param defaults         fill every field the rule leaves out
     * @param defaultAdmission the admission of a rule that sets none; null for no admission limit
     * @param defaultAlgorithm the algorithm of a rule that sets admission limits but no admission.algorithm
     */
    public static Change parse(byte[] key, byte[] value, ShapingRule defaults, AdmissionPolicy defaultAdmission,
                               AdmissionAlgorithm defaultAlgorithm) throws InvalidRuleException {
        String id = id(key);
        if (value == null) {
            return new Delete(id);
        }
        String where = "rule \"" + id + "\"";
        String json = text(id, where, value);
        JsonNode node;
        try {
            node = JSON.readTree(json);
        } catch (JacksonException e) {
            throw new InvalidRuleException(id, where + ": not valid JSON: " + e.getOriginalMessage()
                    + "; expected one rule as a JSON object");
        }
        if (node == null || node.isMissingNode()) {
            throw new InvalidRuleException(id, where + ": the value is empty; expected one rule as a JSON object, or"
                    + " a null value to delete the rule");
        }
        if (!node.isObject()) {
            throw new InvalidRuleException(id, where + ": the value is " + ("a JSON "
                    + node.getNodeType().name().toLowerCase(java.util.Locale.ROOT)) + "; expected one rule as a"
                    + " JSON object, or a null value to delete the rule");
        }
        ObjectNode fields = ((ObjectNode) node).deepCopy();
        int order = order(id, where, fields.remove(ORDER_FIELD));
        try {
            return new Put(id, order, RulesFile.ruleFrom(where, fields, defaults, defaultAdmission,
                    defaultAlgorithm), json, fields);
        } catch (RulesFile.RulesFileException e) {
            throw new InvalidRuleException(id, e.getMessage());
        }
    }

    /**
     * The rule's fields in one order whatever order they were written in: a rule's fields as a rules-file entry lists
     * them ({@code exact} .. {@code mode}), each admission limit's as {@code rate, per, burst}; fields a rule may not
     * have (refused by {@link #parse}) last, as written. Listings print this, so that one rule reads the same from
     * the topic, a file or a put.
     */
    public static ObjectNode canonical(JsonNode ruleFields) {
        ObjectNode ordered = inOrder(ruleFields, RulesFile.RuleSpec.class);
        JsonNode limits = ordered.get("admission.limits");
        if (limits != null && limits.isArray()) {
            var canonicalLimits = JSON.createArrayNode();
            limits.forEach(limit -> canonicalLimits.add(limit.isObject()
                    ? inOrder(limit, RulesFile.LimitSpec.class) : limit));
            ordered.set("admission.limits", canonicalLimits);
        }
        return ordered;
    }

    /** The object's fields in the order of {@code spec}'s components' JSON names, then any others as written. */
    private static ObjectNode inOrder(JsonNode fields, Class<? extends Record> spec) {
        ObjectNode ordered = JSON.createObjectNode();
        for (var component : spec.getRecordComponents()) {
            String name = component.getAccessor().getAnnotation(JsonProperty.class).value();
            if (fields.has(name)) {
                ordered.set(name, fields.get(name));
            }
        }
        fields.fields().forEachRemaining(field -> {
            if (!ordered.has(field.getKey())) {
                ordered.set(field.getKey(), field.getValue());
            }
        });
        return ordered;
    }

    /** The value that sets a rule of these fields at {@code order}: the fields as JSON, with {@code order}. */
    public static String value(JsonNode ruleFields, int order) {
        ObjectNode value = JSON.createObjectNode();
        value.put(ORDER_FIELD, order);
        ruleFields.fields().forEachRemaining(field -> {
            if (!field.getKey().equals(ORDER_FIELD)) {
                value.set(field.getKey(), field.getValue());
            }
        });
        return value.toString();
    }

    private static String id(byte[] key) throws InvalidRuleException {
        if (key == null || key.length == 0) {
            throw new InvalidRuleException(null, "a record " + (key == null ? "without a key" : "with an empty key")
                    + "; expected the rule id as the key (UTF-8 text)");
        }
        String id;
        try {
            id = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(key)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidRuleException(null, "a record whose key is not UTF-8 text; expected the rule id");
        }
        if (id.length() > MAX_ID_LENGTH || id.codePoints().anyMatch(Character::isISOControl) || id.isBlank()) {
            String shown = id.length() > 40 ? id.substring(0, 40) + "..." : id;
            throw new InvalidRuleException(null, "a record with the key \"" + shown.replaceAll("\\p{Cntrl}", "?")
                    + "\"; expected a rule id of 1 to " + MAX_ID_LENGTH + " characters, not blank, without control"
                    + " characters");
        }
        return id;
    }

    private static String text(String id, String where, byte[] value) throws InvalidRuleException {
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(value)).toString();
        } catch (CharacterCodingException e) {
            throw new InvalidRuleException(id, where + ": the value is not UTF-8 text; expected one rule as a JSON"
                    + " object");
        }
    }

    private static int order(String id, String where, JsonNode order) throws InvalidRuleException {
        if (order == null) {
            return 0;
        }
        if (!order.isIntegralNumber() || !order.canConvertToInt()) {
            throw new InvalidRuleException(id, where + ": order is " + order + "; expected a whole number from "
                    + Integer.MIN_VALUE + " to " + Integer.MAX_VALUE + " (lower is matched first)");
        }
        return order.intValue();
    }
}
