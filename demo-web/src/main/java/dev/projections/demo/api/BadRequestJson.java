package dev.projections.demo.api;

/** A malformed request (400). */
public class BadRequestJson extends RuntimeException {

    public BadRequestJson(String message) {
        super(message);
    }
}
