package dev.shove.internal;

import dev.shove.HandlerInterceptor;
import dev.shove.Invocation;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.util.List;

/**
 * The interceptors of a registration around its handler, outermost first: shove's {@link MetricsInterceptor}, then
 * the group's and the registration's own, then the handler.
 */
final class InterceptorChain<T, C> {
    private final Topic<T> topic;
    private final String groupName;
    private final HandlerInterceptor[] interceptors;
    private final MessageHandler<T, ? super C> handler;

    InterceptorChain(
            Topic<T> topic,
            String groupName,
            List<HandlerInterceptor> interceptors,
            MessageHandler<T, ? super C> handler) {
        this.topic = topic;
        this.groupName = groupName;
        this.interceptors = interceptors.toArray(HandlerInterceptor[]::new);
        this.handler = handler;
    }

    /**
     * One run of {@code job} through the chain on {@code worker}, for {@link Worker#invoke}: one object that is both
     * the worker's call and the interceptors' invocation. The worker's previous call of this chain is reused: an
     * invocation belongs to its call ({@link Invocation}: used on the calling thread, before returning), and a worker
     * whose call was taken over never makes another one, so no call of a worker is in use when it makes the next.
     */
    Worker.Call callOf(Job job, Worker worker, T message, MessageMetadata metadata, C context) {
        if (worker.scratchCall instanceof InterceptorChain<?, ?>.Call previous && previous.chain() == this) {
            @SuppressWarnings("unchecked") // same chain, same T
            Call call = (Call) previous;
            call.reset(job, message, metadata, context);
            return call;
        }
        Call call = new Call(worker.slot);
        call.reset(job, message, metadata, context);
        worker.scratchCall = call;
        return call;
    }

    /**
     * For shove's own interceptors at the end of a call: whether they may count this run in the handler meters. Not
     * when the call was taken over (at its deadline the engine counts the timeout outcome; at the drain's deadline
     * the message goes back uncounted), and only once per run ({@link Job#claimCount}).
     */
    static boolean claimCount(Invocation invocation) {
        InterceptorChain<?, ?>.Call call = shoveCall(invocation);
        return call.slot.isRunning() && call.job.claimCount();
    }

    /**
     * For shove's own interceptors: when the worker started this call ({@link System#nanoTime}), so that timing the
     * chain costs them one clock read rather than two.
     */
    static long startNanos(Invocation invocation) {
        return shoveCall(invocation).slot.startNanos();
    }

    private static InterceptorChain<?, ?>.Call shoveCall(Invocation invocation) {
        if (!(invocation instanceof InterceptorChain<?, ?>.Call call)) {
            throw new IllegalArgumentException("not a call of a shove interceptor chain: " + invocation);
        }
        return call;
    }

    /** One call travelling down the chain; reused by its worker for its next call ({@link #callOf}). */
    private final class Call implements Invocation, Worker.Call {
        private final Watchdog.Slot slot;
        private Job job;
        private T message;
        private MessageMetadata metadata;
        private Object context;
        private int next;

        Call(Watchdog.Slot slot) {
            this.slot = slot;
        }

        /** Readies this call for a run of {@code job}, from the outermost interceptor. */
        void reset(Job job, T message, MessageMetadata metadata, Object context) {
            this.job = job;
            this.message = message;
            this.metadata = metadata;
            this.context = context;
            this.next = 0;
        }

        InterceptorChain<T, C> chain() {
            return InterceptorChain.this;
        }

        @Override
        public Outcome call() throws Exception {
            return proceed();
        }

        @Override
        public Topic<?> topic() {
            return topic;
        }

        @Override
        public String groupName() {
            return groupName;
        }

        @Override
        public Object message() {
            return message;
        }

        @Override
        public MessageMetadata metadata() {
            return metadata;
        }

        @Override
        public Object context() {
            return context;
        }

        @Override
        @SuppressWarnings("unchecked")
        public Outcome proceed() throws Exception {
            if (next < interceptors.length) {
                return interceptors[next++].intercept(this);
            }
            return handler.handle(message, metadata, (C) context);
        }

        @Override
        public Outcome proceed(Object context) throws Exception {
            this.context = java.util.Objects.requireNonNull(context, "context");
            return proceed();
        }
    }
}
