package dev.projections.it.support;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import java.util.zip.GZIPInputStream;

/**
 * A collector for tests: it takes what a server exports over OTLP/HTTP with protobuf and keeps each span's ids, name,
 * attributes and links ({@code POST /v1/traces}) and each metric's data points ({@code POST /v1/metrics}: name,
 * attributes, value; logs are taken and dropped). The protobuf is read by hand (the wire format's varints and
 * length-delimited fields), only the fields kept, so the test needs no generated classes; anything else is skipped.
 */
public final class OtlpReceiver implements AutoCloseable {

    /** A received span: ids in lower-case hex, attributes as text, the trace and span ids of its links. */
    public record Span(String traceId, String spanId, String name, Map<String, String> attributes,
                       List<String> linkTraceIds, List<String> linkSpanIds) {
    }

    /**
     * A received data point of a metric: a gauge's or a sum's value, or a histogram's count (how many values it
     * recorded), with its attributes as text.
     */
    public record Point(String metric, Map<String, String> attributes, double value) {
    }

    private final HttpServer server;
    private final List<Span> spans = new CopyOnWriteArrayList<>();
    private final List<Point> points = new CopyOnWriteArrayList<>();

    public OtlpReceiver() throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/traces", exchange -> take(exchange, request -> spans.addAll(exportRequest(request))));
        server.createContext("/v1/metrics",
                exchange -> take(exchange, request -> points.addAll(exportMetricsRequest(request))));
        // the server's logs go to the same endpoint: taken and dropped
        server.createContext("/v1/logs", OtlpReceiver::dropped);
        server.start();
    }

    /** The endpoint to give the exporter ({@code otel.exporter.otlp.endpoint}), without the signal's path. */
    public String endpoint() {
        return "http://127.0.0.1:" + server.getAddress().getPort();
    }

    public List<Span> spans() {
        return List.copyOf(spans);
    }

    /** Every data point received so far, in the order received. */
    public List<Point> points() {
        return List.copyOf(points);
    }

    private static void take(HttpExchange exchange, Consumer<byte[]> keep) throws IOException {
        try (exchange) {
            InputStream body = exchange.getRequestBody();
            if ("gzip".equalsIgnoreCase(exchange.getRequestHeaders().getFirst("Content-Encoding"))) {
                body = new GZIPInputStream(body);
            }
            byte[] request = body.readAllBytes();
            try {
                keep.accept(request);
            } catch (RuntimeException unreadable) {
                exchange.sendResponseHeaders(400, -1);
                return;
            }
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1); // an empty Export…ServiceResponse: all accepted
        }
    }

    private static void dropped(HttpExchange exchange) throws IOException {
        try (exchange) {
            exchange.getRequestBody().readAllBytes();
            exchange.getResponseHeaders().set("Content-Type", "application/x-protobuf");
            exchange.sendResponseHeaders(200, -1);
        }
    }

    /** ExportTraceServiceRequest: resource_spans (1) → scope_spans (2) → spans (2). */
    static List<Span> exportRequest(byte[] request) {
        List<Span> found = new ArrayList<>();
        for (Field resourceSpans : Field.all(request, 1)) {
            for (Field scopeSpans : Field.all(resourceSpans.bytes, 2)) {
                for (Field span : Field.all(scopeSpans.bytes, 2)) {
                    found.add(span(span.bytes));
                }
            }
        }
        return found;
    }

    /**
     * ExportMetricsServiceRequest: resource_metrics (1) → scope_metrics (2) → metrics (2). Metric: name 1; its data
     * in gauge 5 or sum 7 (NumberDataPoint: attributes 7, as_double 4, as_int 6) or histogram 9 (HistogramDataPoint:
     * attributes 9, count 4); points of other kinds are skipped.
     */
    static List<Point> exportMetricsRequest(byte[] request) {
        List<Point> found = new ArrayList<>();
        for (Field resourceMetrics : Field.all(request, 1)) {
            for (Field scopeMetrics : Field.all(resourceMetrics.bytes, 2)) {
                for (Field metric : Field.all(scopeMetrics.bytes, 2)) {
                    String name = text(Field.first(metric.bytes, 1));
                    for (Field data : Field.all(metric.bytes, -1)) {
                        if (data.number == 5 || data.number == 7) {
                            for (Field point : Field.all(data.bytes, 1)) {
                                Field asDouble = Field.first(point.bytes, 4);
                                Field asInt = Field.first(point.bytes, 6);
                                double value = asDouble != null ? Double.longBitsToDouble(asDouble.varint)
                                        : asInt != null ? asInt.varint : Double.NaN;
                                found.add(new Point(name, attributes(point.bytes, 7), value));
                            }
                        } else if (data.number == 9) {
                            for (Field point : Field.all(data.bytes, 1)) {
                                Field count = Field.first(point.bytes, 4);
                                found.add(new Point(name, attributes(point.bytes, 9), count == null ? 0 : count.varint));
                            }
                        }
                    }
                }
            }
        }
        return found;
    }

    /** The KeyValue fields numbered {@code number} of {@code message} (key 1, value 2) as text. */
    private static Map<String, String> attributes(byte[] message, int number) {
        Map<String, String> attributes = new LinkedHashMap<>();
        for (Field attribute : Field.all(message, number)) {
            attributes.put(text(Field.first(attribute.bytes, 1)), value(Field.first(attribute.bytes, 2)));
        }
        return attributes;
    }

    /** Span: trace_id 1, span_id 2, name 5, attributes 9, links 13 (Link: trace_id 1, span_id 2). */
    private static Span span(byte[] span) {
        Map<String, String> attributes = attributes(span, 9);
        List<String> linkTraces = new ArrayList<>();
        List<String> linkSpans = new ArrayList<>();
        for (Field link : Field.all(span, 13)) {
            linkTraces.add(hex(Field.first(link.bytes, 1)));
            linkSpans.add(hex(Field.first(link.bytes, 2)));
        }
        return new Span(hex(Field.first(span, 1)), hex(Field.first(span, 2)), text(Field.first(span, 5)), attributes,
                linkTraces, linkSpans);
    }

    /** AnyValue: string_value 1, bool_value 2, int_value 3 (varints), double_value 4 (fixed64). */
    private static String value(Field any) {
        if (any == null) {
            return null;
        }
        for (Field value : Field.all(any.bytes, -1)) {
            switch (value.number) {
                case 1: return new String(value.bytes, StandardCharsets.UTF_8);
                case 2: return Boolean.toString(value.varint != 0);
                case 3: return Long.toString(value.varint);
                case 4: return Double.toString(Double.longBitsToDouble(value.varint));
                default: return null;
            }
        }
        return null;
    }

    private static String hex(Field field) {
        return field == null ? null : HexFormat.of().formatHex(field.bytes);
    }

    private static String text(Field field) {
        return field == null ? null : new String(field.bytes, StandardCharsets.UTF_8);
    }

    /** One field of a protobuf message: a varint or fixed value, or length-delimited bytes. */
    private record Field(int number, long varint, byte[] bytes) {

        /** The fields numbered {@code number} of {@code message}, all of them for -1, in order. */
        static List<Field> all(byte[] message, int number) {
            List<Field> fields = new ArrayList<>();
            int[] at = {0};
            while (at[0] < message.length) {
                long tag = varint(message, at);
                int field = (int) (tag >>> 3);
                Field read = switch ((int) (tag & 7)) {
                    case 0 -> new Field(field, varint(message, at), null);
                    case 1 -> new Field(field, fixed(message, at, 8), null);
                    case 5 -> new Field(field, fixed(message, at, 4), null);
                    case 2 -> {
                        int length = (int) varint(message, at);
                        if (length < 0 || at[0] + length > message.length) {
                            throw new IllegalArgumentException("a field of " + length + " bytes runs past the message");
                        }
                        byte[] bytes = java.util.Arrays.copyOfRange(message, at[0], at[0] + length);
                        at[0] += length;
                        yield new Field(field, 0, bytes);
                    }
                    default -> throw new IllegalArgumentException("wire type " + (tag & 7) + " at " + at[0]);
                };
                if (number == -1 || field == number) {
                    fields.add(read);
                }
            }
            return fields;
        }

        static Field first(byte[] message, int number) {
            List<Field> fields = all(message, number);
            return fields.isEmpty() ? null : fields.get(0);
        }

        private static long varint(byte[] message, int[] at) {
            long value = 0;
            for (int shift = 0; shift < 64; shift += 7) {
                if (at[0] >= message.length) {
                    throw new IllegalArgumentException("a varint runs past the message");
                }
                byte b = message[at[0]++];
                value |= (long) (b & 0x7f) << shift;
                if ((b & 0x80) == 0) {
                    return value;
                }
            }
            throw new IllegalArgumentException("a varint longer than 10 bytes");
        }

        private static long fixed(byte[] message, int[] at, int bytes) {
            if (at[0] + bytes > message.length) {
                throw new IllegalArgumentException("a fixed field runs past the message");
            }
            long value = 0;
            for (int i = 0; i < bytes; i++) {
                value |= (long) (message[at[0]++] & 0xff) << (8 * i);
            }
            return value;
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
