package dev.projections.store;

import java.util.UUID;

/** A mark's generation: random and never reused, so an ack can tell whether the key changed since its claim. */
final class Generations {

    private Generations() {
    }

    static String next() {
        return UUID.randomUUID().toString();
    }
}
