package dev.shaper.feedback;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * One DB writer's report of one window, as it travels on the feedback topic (record key: the writer's id, UTF-8):
 * <pre>{"atMs": 1764000000000, "windowMs": 1000, "writes": 950, "errors": 3, "latencyP99Ms": 42.5}</pre>
 * Unknown fields are ignored, so that writers may send more than the shaper reads.
 *
 * @param atMs         when the window ended, epoch milliseconds
 * @param windowMs     how long the window was, milliseconds (more than 0)
 * @param writes       units of cost written successfully in the window (0 or more)
 * @param errors       units of cost whose write failed in the window (0 or more)
 * @param latencyP99Ms the 99th percentile of the window's write latencies, milliseconds; null when nothing was
 *                     written
 */
public record FeedbackReport(long atMs, long windowMs, long writes, long errors, Double latencyP99Ms) {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** A report that breaks none of the rules above. */
    public FeedbackReport {
        if (windowMs <= 0) {
            throw new IllegalArgumentException("windowMs must be > 0, got " + windowMs);
        }
        if (writes < 0 || errors < 0) {
            throw new IllegalArgumentException("writes and errors must be >= 0, got " + writes + " and " + errors);
        }
        if (latencyP99Ms != null && !(latencyP99Ms >= 0 && Double.isFinite(latencyP99Ms))) {
            throw new IllegalArgumentException("latencyP99Ms must be a finite number >= 0, got " + latencyP99Ms);
        }
    }

    /** Units attempted in the window: written and failed. */
    public long attempts() {
        return writes + errors;
    }

    /** The share of the attempts that failed, 0 when nothing was attempted. */
    public double errorRatio() {
        long attempts = attempts();
        return attempts == 0 ? 0 : (double) errors / attempts;
    }

    /** The record value: this report as JSON, UTF-8. */
    public byte[] toJson() {
        ObjectNode node = JSON.createObjectNode();
        node.put("atMs", atMs);
        node.put("windowMs", windowMs);
        node.put("writes", writes);
        node.put("errors", errors);
        if (latencyP99Ms != null) {
            node.put("latencyP99Ms", latencyP99Ms);
        }
        try {
            return JSON.writeValueAsBytes(node);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a feedback report", e);
        }
    }

    /**
     * Reads a record value.
     *
     * @throws MalformedFeedbackException naming what is wrong: not JSON, a field missing, of the wrong type or out of
     *                                    range
     */
    public static FeedbackReport parse(byte[] value) throws MalformedFeedbackException {
        if (value == null) {
            throw new MalformedFeedbackException("no value");
        }
        JsonNode node;
        try {
            node = JSON.readTree(value);
        } catch (JsonProcessingException e) {
            throw new MalformedFeedbackException("not JSON: " + e.getOriginalMessage());
        } catch (IOException e) {
            throw new MalformedFeedbackException("not JSON: " + e.getMessage());
        }
        if (node == null || !node.isObject()) {
            throw new MalformedFeedbackException("not a JSON object: " + abbreviate(value));
        }
        try {
            return new FeedbackReport(whole(node, "atMs"), whole(node, "windowMs"), whole(node, "writes"),
                    whole(node, "errors"), optionalNumber(node, "latencyP99Ms"));
        } catch (IllegalArgumentException e) {
            throw new MalformedFeedbackException(e.getMessage());
        }
    }

    private static long whole(JsonNode node, String field) throws MalformedFeedbackException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            throw new MalformedFeedbackException("field \"" + field + "\" is missing");
        }
        if (!value.isIntegralNumber() || !value.canConvertToLong()) {
            throw new MalformedFeedbackException("field \"" + field + "\" must be a whole number, got " + value);
        }
        return value.longValue();
    }

    private static Double optionalNumber(JsonNode node, String field) throws MalformedFeedbackException {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isNumber()) {
            throw new MalformedFeedbackException("field \"" + field + "\" must be a number, got " + value);
        }
        return value.doubleValue();
    }

    private static String abbreviate(byte[] value) {
        String text = new String(value, StandardCharsets.UTF_8);
        return text.length() <= 80 ? text : text.substring(0, 80) + "...";
    }
}
