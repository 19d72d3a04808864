package dev.projections.demo.orders.boundary;

import jakarta.ejb.ApplicationException;

/** No such order in the caller's tenant (404). */
@ApplicationException(rollback = true)
public class UnknownOrderException extends RuntimeException {

    public UnknownOrderException(long orderId) {
        super("no order " + orderId);
    }
}
