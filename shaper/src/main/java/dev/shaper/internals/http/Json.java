package dev.shaper.internals.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.LinkedHashMap;
import java.util.Map;

/** JSON bodies of the HTTP endpoints. */
final class Json {

    private static final ObjectMapper MAPPER = new ObjectMapper();

    private Json() {
    }

    static byte[] write(Map<String, Object> body) {
        try {
            return MAPPER.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write a JSON body", e);
        }
    }

    /** A body from another instance; one that is not a JSON object is wrapped, not trusted. */
    static Map<String, Object> read(String body) {
        try {
            return MAPPER.readValue(body, new TypeReference<LinkedHashMap<String, Object>>() { });
        } catch (JsonProcessingException e) {
            Map<String, Object> wrapped = new LinkedHashMap<>();
            wrapped.put("error", "the hosting instance answered something that is not JSON");
            wrapped.put("answer", body.length() > 500 ? body.substring(0, 500) : body);
            return wrapped;
        }
    }
}
