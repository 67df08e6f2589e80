package dev.shove.internal;

import dev.shove.HandlerInterceptor;
import dev.shove.Invocation;
import dev.shove.Outcome;

/**
 * shove's handler meters as an interceptor: the outermost link of every registration's chain, outside the group's and
 * the registration's own interceptors, so that it counts what the whole chain decided (an outcome an interceptor
 * short-circuited included) and times the whole chain. It records {@code shove.messages.consumed{outcome}} and {@code
 * shove.message.processing.duration{outcome}} when the chain returns; a chain that throws (or returns null) counts as
 * the {@code retry} the engine makes of it.
 *
 * <p>A call the watchdog takes over at the deadline is counted by the engine instead, with the timeout outcome, since
 * a call that never returns never reaches this interceptor's end; a call returning after it was taken over is not
 * counted again ({@link InterceptorChain#claimCount}).
 */
final class MetricsInterceptor implements HandlerInterceptor {
    private final Metrics.ConsumerMeters meters;

    MetricsInterceptor(Metrics.ConsumerMeters meters) {
        this.meters = meters;
    }

    @Override
    public Outcome intercept(Invocation invocation) throws Exception {
        long start = InterceptorChain.startNanos(invocation);
        Outcome outcome = null;
        try {
            outcome = invocation.proceed();
            return outcome;
        } finally {
            if (InterceptorChain.claimCount(invocation)) {
                meters.consumed(outcome == null ? Outcome.Kind.RETRY : outcome.kind(), System.nanoTime() - start);
            }
        }
    }
}
