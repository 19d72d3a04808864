package dev.projections.it.support;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.URLDecoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;
import tools.jackson.databind.json.JsonMapper;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The management API's OpenAPI document (projection-console's {@code openapi.yaml}) as a contract the integration
 * tests hold the server to: a request is checked against the operation its method and path name (declared path and
 * method, query parameters declared and valid, required ones present, the body against the request body's schema, the
 * HTTP Basic credentials the document requires), an answer against that operation's responses (status declared,
 * the headers it requires there, content type declared, a JSON body valid against its JSON Schema, draft 2020-12 as
 * OpenAPI 3.1 says). An answer to a request
 * no operation takes (an unknown path, a method the path lacks) must be the document's {@code Problem}. Each check
 * returns what it found wrong, one line each, empty when nothing.
 */
public final class OpenApiContract {

    public static final Path DOCUMENT =
            Path.of("..", "projection-console", "src", "main", "resources", "dev", "projections", "console", "api",
                    "openapi.yaml");

    private static final ObjectMapper JSON = JsonMapper.builder().build();
    private static final Pattern TEMPLATE = Pattern.compile("\\{[^/}]+}");

    private final JsonNode document;
    private final String base;
    // format asserted, not only noted (2020-12's default): a date-time that is not one fails
    private final SchemaRegistry schemas = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_2020_12,
            registry -> registry.schemaRegistryConfig(SchemaRegistryConfig.builder().formatAssertionsEnabled(true).build()));
    private final Map<String, Schema> compiled = new LinkedHashMap<>();
    private final List<Route> routes = new ArrayList<>();

    private record Route(String template, Pattern pattern, int variables) {
    }

    /** An operation of the document, with the JSON pointer of its path item and its own. */
    public record Operation(String method, String template, String pathPointer, String pointer) {
    }

    public OpenApiContract(String yaml) {
        document = new YAMLMapper().readTree(yaml);
        base = document.path("servers").path(0).path("url").asString("");
        for (var path : document.path("paths").propertyNames()) {
            routes.add(new Route(path, Pattern.compile(TEMPLATE.matcher(Pattern.quote(path)).replaceAll("\\\\E[^/]+\\\\Q")),
                    (int) TEMPLATE.matcher(path).results().count()));
        }
        // a literal segment wins over a template that also matches it
        routes.sort(Comparator.comparingInt(Route::variables));
    }

    /** The document of the source tree, as the server serves it. */
    public static OpenApiContract ofSourceTree() {
        try {
            return new OpenApiContract(Files.readString(DOCUMENT));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The operation {@code method} and {@code uri}'s path take, if the document has one. */
    public Optional<Operation> operation(String method, URI uri) {
        // the document's server is /projections/api/v1; a single WAR serves it under its own context root before that
        String path = uri.getPath();
        int at = path.indexOf(base + "/");
        if (at < 0) {
            return Optional.empty();
        }
        String relative = path.substring(at + base.length());
        for (Route route : routes) {
            String pathPointer = "/paths/" + escape(route.template());
            String verb = method.toLowerCase(Locale.ROOT);
            if (route.pattern().matcher(relative).matches() && document.at(pathPointer).has(verb)) {
                return Optional.of(new Operation(method, route.template(), pathPointer, pathPointer + "/" + verb));
            }
        }
        return Optional.empty();
    }

    /** What is wrong with a request by the document; {@code headers} by lower-case name. */
    public List<String> requestProblems(String method, URI uri, Map<String, String> headers, String body) {
        List<String> problems = new ArrayList<>();
        Optional<Operation> found = operation(method, uri);
        if (found.isEmpty()) {
            problems.add("no operation " + method + " " + uri.getPath() + " in the document");
            return problems;
        }
        Operation operation = found.get();
        JsonNode security = document.at(operation.pointer()).has("security")
                ? document.at(operation.pointer() + "/security") : document.path("security");
        if (!security.isEmpty() && !security.path(0).isEmpty()
                && !headers.getOrDefault("authorization", "").startsWith("Basic ")) {
            problems.add(operation.method() + " " + operation.template() + " requires HTTP Basic credentials");
        }
        Map<String, List<String>> query = query(uri);
        Map<String, String> declared = new LinkedHashMap<>();
        for (String pointer : List.of(operation.pathPointer(), operation.pointer())) {
            JsonNode parameters = document.at(pointer + "/parameters");
            for (int i = 0; i < parameters.size(); i++) {
                String parameterPointer = resolve(pointer + "/parameters/" + i);
                JsonNode parameter = document.at(parameterPointer);
                if (!parameter.path("in").asString().equals("query")) {
                    continue;
                }
                String name = parameter.path("name").asString();
                declared.put(name, parameterPointer + "/schema");
                if (parameter.path("required").asBoolean(false) && !query.containsKey(name)) {
                    problems.add("query parameter " + name + " is required");
                }
            }
        }
        query.forEach((name, values) -> {
            String schema = declared.get(name);
            if (schema == null) {
                problems.add("query parameter " + name + " is not in the document");
            } else if (values.size() > 1) {
                // none of the document's parameters is an array: a second value is not in it
                problems.add("query parameter " + name + " is given " + values.size() + " times");
            } else {
                problems.addAll(validate(schema, parameterValue(schema, values.get(0)), "query parameter " + name));
            }
        });
        String requestBody = resolve(operation.pointer() + "/requestBody");
        boolean empty = body == null || body.isEmpty();
        if (document.at(requestBody).isMissingNode()) {
            if (!empty) {
                problems.add(operation.method() + " " + operation.template() + " takes no body");
            }
        } else if (empty) {
            if (document.at(requestBody + "/required").asBoolean(false)) {
                problems.add(operation.method() + " " + operation.template() + " requires a body");
            }
        } else {
            String type = mediaType(headers.get("content-type"));
            String content = requestBody + "/content/" + escape(type);
            if (document.at(content).isMissingNode()) {
                problems.add("request content type " + type + " is not in the document");
            } else {
                problems.addAll(validateJson(content + "/schema", body, "request body"));
            }
        }
        return problems;
    }

    /** What is wrong with the answer to {@code method} on {@code uri} by the document. */
    public List<String> responseProblems(String method, URI uri, int status, String contentType, String body) {
        Map<String, String> headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        if (contentType != null) {
            headers.put("Content-Type", contentType);
        }
        return responseProblems(method, uri, status, headers, body);
    }

    /** As above, with the answer's headers (by name, any case): those the document requires must be there. */
    public List<String> responseProblems(String method, URI uri, int status, Map<String, String> headers,
                                         String body) {
        Map<String, String> byName = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        byName.putAll(headers);
        String contentType = byName.get("Content-Type");
        Optional<Operation> operation = operation(method, uri);
        String response;
        String where;
        if (operation.isEmpty()) {
            response = "/components/responses/Problem";
            where = "the answer to " + method + " " + uri.getPath() + ", which no operation takes";
            if (status != 404 && status != 405) {
                return List.of(where + " is " + status + ", not 404 (no such path) or 405 (not that method)");
            }
        } else {
            JsonNode responses = document.at(operation.get().pointer() + "/responses");
            String key = responses.has(String.valueOf(status)) ? String.valueOf(status)
                    : responses.has(status / 100 + "XX") ? status / 100 + "XX" : responses.has("default") ? "default" : null;
            where = operation.get().method() + " " + operation.get().template() + " " + status;
            if (key == null) {
                return List.of(where + ": the status is not in the document (" + String.join(", ",
                        responses.propertyNames()) + ")");
            }
            response = resolve(operation.get().pointer() + "/responses/" + escape(key));
        }
        List<String> problems = new ArrayList<>(headerProblems(response, byName, where));
        JsonNode content = document.at(response + "/content");
        if (content.isMissingNode() || content.isEmpty()) {
            if (body != null && !body.isEmpty()) {
                problems.add(where + ": a body the document does not declare");
            }
            return problems;
        }
        String type = mediaType(contentType);
        if (!content.has(type)) {
            problems.add(where + ": content type " + type + " is not in the document (" + String.join(", ",
                    content.propertyNames()) + ")");
        } else if (type.endsWith("json")) {
            // JSON bodies against their schema; another type (the document itself, YAML) by its declared type alone
            problems.addAll(validateJson(response + "/content/" + escape(type) + "/schema", body, where));
        }
        return problems;
    }

    /** The headers the response at {@code response} requires: present, and valid against their schema. */
    private List<String> headerProblems(String response, Map<String, String> headers, String where) {
        List<String> problems = new ArrayList<>();
        JsonNode declared = document.at(response + "/headers");
        for (String name : declared.propertyNames()) {
            String pointer = resolve(response + "/headers/" + escape(name));
            String value = headers.get(name);
            if (value == null) {
                if (document.at(pointer + "/required").asBoolean(false)) {
                    problems.add(where + ": no " + name + " header");
                }
            } else if (document.at(pointer).has("schema")) {
                problems.addAll(validate(pointer + "/schema", parameterValue(pointer + "/schema", value),
                        where + ": header " + name));
            }
        }
        return problems;
    }

    /**
     * Sends {@code request}, whose body is {@code body}, and fails the test unless the answer is one the document
     * declares and, {@code onContract}, the request one it describes; a request a test means to be wrong (no
     * credentials, a bad value) is sent with {@code onContract} false.
     */
    public HttpResponse<String> exchange(HttpClient http, HttpRequest request, String body, boolean onContract)
            throws IOException, InterruptedException {
        if (onContract) {
            Map<String, String> headers = new LinkedHashMap<>();
            request.headers().map().forEach((name, values) -> headers.put(name.toLowerCase(Locale.ROOT), values.get(0)));
            assertThat(requestProblems(request.method(), request.uri(), headers, body))
                    .as("%s %s by the OpenAPI document", request.method(), request.uri()).isEmpty();
        }
        HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
        assertAnswer(request.method(), request.uri(), response);
        return response;
    }

    /** Fails the test unless {@code response}, the answer to {@code method} on {@code uri}, is one the document declares. */
    public void assertAnswer(String method, URI uri, HttpResponse<String> response) {
        Map<String, String> headers = new LinkedHashMap<>();
        response.headers().map().forEach((name, values) -> headers.put(name, values.get(0)));
        assertThat(responseProblems(method, uri, response.statusCode(), headers, response.body()))
                .as("the answer to %s %s by the OpenAPI document: %s", method, uri, response.body()).isEmpty();
    }

    /** As {@link #assertAnswer}, for a raw HTTP/1.1 answer ({@link LoopbackClient}); returns it. */
    public String assertRawAnswer(String method, URI uri, String raw) {
        LoopbackClient.Answer answer = LoopbackClient.Answer.of(raw);
        assertThat(responseProblems(method, uri, answer.status(), answer.headers(), answer.body()))
                .as("the answer to %s %s by the OpenAPI document: %s", method, uri, raw).isEmpty();
        return raw;
    }

    private List<String> validateJson(String schemaPointer, String json, String what) {
        JsonNode value;
        try {
            value = JSON.readTree(json);
        } catch (RuntimeException e) {
            return List.of(what + ": not JSON: " + e.getMessage());
        }
        return validate(schemaPointer, value, what);
    }

    private List<String> validate(String schemaPointer, JsonNode value, String what) {
        Schema schema = compiled.computeIfAbsent(schemaPointer, pointer -> {
            // the whole document with a $ref to the schema: its own $refs (#/components/...) resolve within it
            ObjectNode root = document.deepCopy() instanceof ObjectNode copy ? copy : JSON.createObjectNode();
            root.put("$schema", "https://json-schema.org/draft/2020-12/schema");
            root.put("$ref", "#" + pointer);
            return schemas.getSchema(root);
        });
        List<String> problems = new ArrayList<>();
        for (Error error : schema.validate(value)) {
            problems.add(what + ": " + error.toString());
        }
        return problems;
    }

    /** A query parameter's text as the JSON value its schema expects (a number where it asks for one). */
    private JsonNode parameterValue(String schemaPointer, String value) {
        JsonNode type = document.at(resolve(schemaPointer) + "/type");
        boolean numeric = type.asString("").matches("integer|number")
                || type.isArray() && (type.toString().contains("integer") || type.toString().contains("number"));
        if (numeric && value.matches("-?\\d+(\\.\\d+)?")) {
            return JSON.readTree(value);
        }
        return JSON.getNodeFactory().stringNode(value);
    }

    /** Follows the {@code $ref} at {@code pointer}, if there is one, to the pointer it names. */
    private String resolve(String pointer) {
        String ref = document.at(pointer + "/$ref").asString("");
        return ref.startsWith("#/") ? resolve(ref.substring(1)) : pointer;
    }

    /** The query's parameters by name, every value of each in order. */
    private static Map<String, List<String>> query(URI uri) {
        Map<String, List<String>> query = new LinkedHashMap<>();
        if (uri.getRawQuery() != null) {
            for (String pair : uri.getRawQuery().split("&")) {
                int equals = pair.indexOf('=');
                String name = URLDecoder.decode(equals < 0 ? pair : pair.substring(0, equals), StandardCharsets.UTF_8);
                query.computeIfAbsent(name, ignored -> new ArrayList<>())
                        .add(equals < 0 ? "" : URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
            }
        }
        return query;
    }

    private static String mediaType(String contentType) {
        return contentType == null ? "" : contentType.split(";")[0].strip().toLowerCase(Locale.ROOT);
    }

    /** A JSON pointer's escaping of one reference token. */
    private static String escape(String token) {
        return token.replace("~", "~0").replace("/", "~1");
    }
}
