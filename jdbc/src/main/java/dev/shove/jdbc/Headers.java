package dev.shove.jdbc;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.Map;
import java.util.TreeMap;

/** A row's headers as a JSON object of strings: readable in a SQL console, the same text on every database. */
final class Headers {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final TypeReference<TreeMap<String, String>> MAP = new TypeReference<>() {};

    private Headers() {}

    static String write(Map<String, String> headers) {
        try {
            return JSON.writeValueAsString(new TreeMap<>(headers));
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write headers as JSON", e);
        }
    }

    static Map<String, String> read(String json) {
        try {
            return Map.copyOf(JSON.readValue(json, MAP));
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException(
                    "the headers column is not a JSON object of strings: " + e.getMessage(), e);
        }
    }
}
