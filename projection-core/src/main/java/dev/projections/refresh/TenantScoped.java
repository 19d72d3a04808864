package dev.projections.refresh;

import dev.projections.TenantScope;
import java.util.function.Consumer;

/**
 * Work run as a tenant (docs/contract.md §8). Entering the scope is part of the work: a scope that cannot be entered
 * fails it. Closing it once the work returned is not — the work's transaction committed by then, so what the close
 * throws goes to {@code closeFailed} instead of turning a committed refresh or rebuild step into a failed one, which
 * would mark an acked key again or retry a counted page. A close that throws after the work failed is added to the
 * work's failure as suppressed, as try-with-resources does.
 */
final class TenantScoped {

    interface Work<T> {
        T run() throws Exception;
    }

    private TenantScoped() {
    }

    /** {@code work} as {@code tenantId}; for {@code ""} without entering any scope (the product never guesses one). */
    static <T> T run(TenantScope scope, String tenantId, Work<T> work, Consumer<Throwable> closeFailed)
            throws Exception {
        TenantScope.Entered entered = tenantId.isEmpty() ? null : scope.enter(tenantId);
        T result;
        try {
            result = work.run();
        } catch (Exception | Error failure) {
            if (entered != null) {
                try {
                    entered.close();
                } catch (RuntimeException | Error closing) {
                    if (closing != failure) {
                        failure.addSuppressed(closing);
                    }
                }
            }
            throw failure;
        }
        if (entered != null) {
            try {
                entered.close();
            } catch (RuntimeException | LinkageError | AssertionError closing) {
                closeFailed.accept(closing);
            }
        }
        return result;
    }
}
