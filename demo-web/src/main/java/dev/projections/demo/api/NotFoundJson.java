package dev.projections.demo.api;

/** Nothing at this address for the caller's tenant (404), with a message the API chose. */
public class NotFoundJson extends RuntimeException {

    public NotFoundJson(String message) {
        super(message);
    }
}
