package dev.projections.console.api;

import jakarta.json.Json;
import jakarta.json.JsonException;
import jakarta.json.JsonNumber;
import jakarta.json.JsonObject;
import jakarta.json.JsonReader;
import jakarta.json.JsonString;
import jakarta.json.JsonValue;
import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.util.Set;
import java.util.TreeSet;
import java.util.Locale;

/**
 * An action's JSON body: an object whose fields are read by name and type, each error naming the field and what was
 * sent. A field the action does not know is refused rather than ignored, so a misspelt {@code "tennant"} cannot turn
 * a one-tenant rebuild into one of every tenant. An empty body is the empty object.
 */
final class JsonBody {

    /** Far more than any action's fields take: a larger body is refused unread. */
    static final int MAX_BYTES = 16_384;

    private final JsonObject object;

    private JsonBody(JsonObject object) {
        this.object = object;
    }

    static JsonBody read(InputStream in, String contentType, Set<String> known) throws IOException {
        byte[] bytes = in.readNBytes(MAX_BYTES + 1);
        if (bytes.length > MAX_BYTES) {
            throw ApiProblem.badRequest("the body must be at most " + MAX_BYTES + " bytes");
        }
        String text = new String(bytes, StandardCharsets.UTF_8);
        if (text.isBlank()) {
            return new JsonBody(JsonValue.EMPTY_JSON_OBJECT);
        }
        if (contentType == null || !contentType.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            throw new ApiProblem(415, "the body must be application/json, was " + (contentType == null ? "no type"
                    : "\"" + contentType + "\""));
        }
        JsonValue value;
        try (JsonReader reader = Json.createReader(new StringReader(text))) {
            value = reader.readValue();
        } catch (JsonException notJson) {
            throw ApiProblem.badRequest("the body is not JSON: " + firstLine(notJson.getMessage()));
        }
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw ApiProblem.badRequest("the body must be a JSON object, was " + kind(value));
        }
        JsonBody body = new JsonBody(value.asJsonObject());
        body.refuseUnknown(known);
        return body;
    }

    private void refuseUnknown(Set<String> known) {
        Set<String> unknown = new TreeSet<>(object.keySet());
        unknown.removeAll(known);
        if (!unknown.isEmpty()) {
            throw ApiProblem.badRequest("unknown field" + (unknown.size() > 1 ? "s " : " ") + unknown
                    + "; this action takes " + new TreeSet<>(known));
        }
    }

    /** A string field, {@code null} when absent or JSON null. */
    String string(String name) {
        JsonValue value = object.get(name);
        if (value == null || value == JsonValue.NULL) {
            return null;
        }
        if (value instanceof JsonString text) {
            return text.getString();
        }
        throw ApiProblem.badRequest("\"" + name + "\" must be a string, was " + kind(value) + " " + value);
    }

    /** Whether the field is present, even as JSON null. */
    boolean has(String name) {
        return object.containsKey(name);
    }

    /** A whole-number field, {@code null} when absent or JSON null. */
    Long number(String name) {
        JsonValue value = object.get(name);
        if (value == null || value == JsonValue.NULL) {
            return null;
        }
        if (value instanceof JsonNumber number && number.isIntegral()) {
            try {
                return number.longValueExact();
            } catch (ArithmeticException tooLarge) {
                throw ApiProblem.badRequest("\"" + name + "\" is too large: " + value);
            }
        }
        throw ApiProblem.badRequest("\"" + name + "\" must be a whole number, was " + kind(value) + " " + value);
    }

    /** An object field, as a body of its own with its own known fields; {@code null} when absent or JSON null. */
    JsonBody object(String name, Set<String> known) {
        JsonValue value = object.get(name);
        if (value == null || value == JsonValue.NULL) {
            return null;
        }
        if (value.getValueType() != JsonValue.ValueType.OBJECT) {
            throw ApiProblem.badRequest("\"" + name + "\" must be an object, was " + kind(value) + " " + value);
        }
        JsonBody inner = new JsonBody(value.asJsonObject());
        try {
            inner.refuseUnknown(known);
        } catch (ApiProblem unknown) {
            throw ApiProblem.badRequest("in \"" + name + "\": " + unknown.getMessage());
        }
        return inner;
    }

    private static String kind(JsonValue value) {
        return switch (value.getValueType()) {
            case ARRAY -> "an array";
            case OBJECT -> "an object";
            case STRING -> "a string";
            case NUMBER -> "a number";
            case TRUE, FALSE -> "a boolean";
            case NULL -> "null";
        };
    }

    private static String firstLine(String message) {
        return message == null ? "unreadable" : message.lines().findFirst().orElse(message);
    }
}
