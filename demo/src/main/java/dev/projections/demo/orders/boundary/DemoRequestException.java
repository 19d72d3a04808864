package dev.projections.demo.orders.boundary;

import jakarta.ejb.ApplicationException;

/** A request the demo refuses (400); rolls the transaction back so nothing is written. */
@ApplicationException(rollback = true)
public class DemoRequestException extends RuntimeException {

    public DemoRequestException(String message) {
        super(message);
    }
}
