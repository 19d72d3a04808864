package dev.projections.demo.api;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.ext.Provider;
import jakarta.ws.rs.ext.ReaderInterceptor;
import jakarta.ws.rs.ext.ReaderInterceptorContext;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;

/**
 * Request bodies of the demo API stay under {@link #MAX_BYTES}: a larger one answers 413 with the API's JSON error,
 * whether it announces its length or is sent in chunks (then it is cut off once it passes the limit). Without it,
 * only Undertow's 10 MB limit applied, and that one ends the connection mid-read.
 */
@Provider
public class BodySizeLimit implements ReaderInterceptor {

    static final int MAX_BYTES = 1024 * 1024;
    static final String MESSAGE = "request body larger than 1 MiB";

    /** Thrown while a body is read; found by the error mappers under whatever JSON-B wraps it in. */
    public static final class TooLarge extends IOException {
        TooLarge() {
            super(MESSAGE);
        }
    }

    @Override
    public Object aroundReadFrom(ReaderInterceptorContext context) throws IOException, WebApplicationException {
        String length = context.getHeaders().getFirst("Content-Length");
        if (length != null && length.chars().allMatch(Character::isDigit) && length.length() < 19
                && Long.parseLong(length) > MAX_BYTES) {
            throw new TooLarge();
        }
        context.setInputStream(new Limited(context.getInputStream()));
        return context.proceed();
    }

    private static final class Limited extends FilterInputStream {
        private long read;

        Limited(InputStream in) {
            super(in);
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int n = super.read(buffer, offset, length);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws TooLarge {
            read += n;
            if (read > MAX_BYTES) {
                throw new TooLarge();
            }
        }
    }
}
