package dev.projections.ee;

import dev.projections.engine.Foundation;
import dev.projections.AwaitRefresh;
import dev.projections.CommitCapture;
import dev.projections.RefreshWait;
import dev.projections.config.Durations;
import jakarta.annotation.Priority;
import jakarta.enterprise.inject.Instance;
import jakarta.inject.Inject;
import jakarta.interceptor.AroundInvoke;
import jakarta.interceptor.Interceptor;
import jakarta.interceptor.InvocationContext;
import java.lang.reflect.Method;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.logging.Logger;

/**
 * {@link AwaitRefresh}: captures the commits of the call and waits for their refresh once it returned
 * (docs/contract.md §14). Its priority puts it outside {@code @Transactional}'s interceptor
 * ({@code PLATFORM_BEFORE + 200}), so the wait begins after that transaction committed; an EJB's container
 * transaction wraps every interceptor of the EJB, so on an EJB's own method the wait would begin inside it: it does
 * not wait there, and the log says once per method where the annotation belongs.
 */
@AwaitRefresh
@Interceptor
@Priority(Interceptor.Priority.PLATFORM_BEFORE + 100)
public class AwaitRefreshInterceptor {

    private static final Logger LOG = Logger.getLogger(AwaitRefreshInterceptor.class.getName());
    private static final Map<Method, Duration> TIMEOUTS = new ConcurrentHashMap<>();
    private static final Set<Method> WARNED = ConcurrentHashMap.newKeySet();

    /*
     * Resolved at the first call, not when the intercepted bean is made (an application's start-up bean would make the
     * engine's settings and datasource be chosen before the persistence units started, docs/design.md D35).
     */
    @Inject
    Instance<Foundation> foundations;

    private Foundation foundation;

    @AroundInvoke
    public Object awaitRefresh(InvocationContext call) throws Exception {
        Duration timeout = TIMEOUTS.computeIfAbsent(call.getMethod(),
                method -> timeoutOf(method, call.getTarget() == null ? null : call.getTarget().getClass()));
        if (foundation == null) {
            foundation = foundations.get();
        }
        if (!foundation.settings().enabled()) {
            return call.proceed();
        }
        try (CommitCapture capture = foundation.waits().capture()) {
            Object result = call.proceed();
            RefreshWait wait = capture.await(timeout);
            if (wait.result() == RefreshWait.Result.NOT_WAITED && foundation.waits().inTransaction()
                    && WARNED.add(call.getMethod())) {
                LOG.warning("PRJ402: @AwaitRefresh on " + call.getMethod().getDeclaringClass().getName() + "."
                        + call.getMethod().getName() + " does not wait: the method's transaction is still open when it"
                        + " returns (an EJB's container transaction wraps its interceptors, or the method joined its"
                        + " caller's); put @AwaitRefresh on a caller outside the transaction");
            }
            return result;
        }
    }

    /**
     * The method's {@code @AwaitRefresh}, else its bean class's (through the container's subclass, and inherited),
     * else its declaring class's; a value that is no duration fails the call, naming it.
     */
    private static Duration timeoutOf(Method method, Class<?> target) {
        AwaitRefresh annotation = method.getAnnotation(AwaitRefresh.class);
        for (Class<?> type = target; annotation == null && type != null && type != Object.class;
             type = type.getSuperclass()) {
            annotation = type.getAnnotation(AwaitRefresh.class);
        }
        if (annotation == null) {
            annotation = method.getDeclaringClass().getAnnotation(AwaitRefresh.class);
        }
        String value = annotation == null ? "2s" : annotation.value();
        Duration timeout = Durations.nonNegative(value);
        if (timeout != null) {
            return timeout;
        }
        throw new IllegalArgumentException("@AwaitRefresh(\"" + value + "\") on " + method.getDeclaringClass().getName()
                + "." + method.getName() + ": the value must be a duration such as 500ms, 2s or 1m");
    }
}
