package dev.projections.it.support;

import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;

/**
 * HTTP/1.1 to the test server from a chosen loopback address (127.0.0.2, …: the server, listening on 127.0.0.1, sees
 * that address), for tests of per-client throttling. Over a socket of its own: HttpClient cannot choose its local
 * address on JDK 17. Answers the whole raw response, status line first.
 */
public final class LoopbackClient {

    private LoopbackClient() {
    }

    /** {@code head} is the request line and headers (CRLF each, {@code Host} and {@code Connection} added). */
    public static String send(String from, String head, String body) {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(InetAddress.getByName(from), 0));
            socket.connect(new InetSocketAddress("127.0.0.1", 8080), 5_000);
            socket.setSoTimeout(10_000);
            OutputStream out = socket.getOutputStream();
            out.write((head + "Host: 127.0.0.1:8080\r\nConnection: close\r\n\r\n" + body)
                    .getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (java.io.IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A raw answer taken apart: status, headers, and the body (a chunked one put together). */
    public record Answer(int status, java.util.Map<String, String> headers, String body) {

        public static Answer of(String raw) {
            int end = raw.indexOf("\r\n\r\n");
            String[] lines = raw.substring(0, end).split("\r\n");
            java.util.Map<String, String> headers = new java.util.TreeMap<>(String.CASE_INSENSITIVE_ORDER);
            for (int i = 1; i < lines.length; i++) {
                int colon = lines[i].indexOf(':');
                headers.put(lines[i].substring(0, colon).strip(), lines[i].substring(colon + 1).strip());
            }
            String body = raw.substring(end + 4);
            if ("chunked".equalsIgnoreCase(headers.get("Transfer-Encoding"))) {
                StringBuilder joined = new StringBuilder();
                int at = 0;
                while (true) {
                    int lineEnd = body.indexOf("\r\n", at);
                    int size = Integer.parseInt(body.substring(at, lineEnd).split(";")[0].strip(), 16);
                    if (size == 0) {
                        break;
                    }
                    // sizes count bytes: the API's answers here are ASCII
                    joined.append(body, lineEnd + 2, lineEnd + 2 + size);
                    at = lineEnd + 2 + size + 2;
                }
                body = joined.toString();
            }
            return new Answer(Integer.parseInt(lines[0].split(" ")[1]), headers, body);
        }

        public String header(String name) {
            return headers.get(name);
        }
    }
}
