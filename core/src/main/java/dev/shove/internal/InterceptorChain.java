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
     * One run of {@code job} through the chain, armed in the worker's watchdog {@code slot}, for {@link
     * Worker#invoke}: one object that is both the worker's call and the interceptors' invocation.
     */
    Worker.Call callOf(Job job, Watchdog.Slot slot, T message, MessageMetadata metadata, C context) {
        return new Call(job, slot, message, metadata, context);
    }

    /**
     * For shove's own interceptors at the end of a call: whether they may count this run in the handler meters. Not
     * when the call was taken over (at its deadline the engine counts the timeout outcome; at the drain's deadline
     * the message goes back uncounted), and only once per run ({@link Job#claimCount}).
     */
    static boolean claimCount(Invocation invocation) {
        if (!(invocation instanceof InterceptorChain<?, ?>.Call call)) {
            throw new IllegalArgumentException("not a call of a shove interceptor chain: " + invocation);
        }
        return call.slot.isRunning() && call.job.claimCount();
    }

    /** One call travelling down the chain. */
    private final class Call implements Invocation, Worker.Call {
        private final Job job;
        private final Watchdog.Slot slot;
        private final T message;
        private final MessageMetadata metadata;
        private Object context;
        private int next;

        Call(Job job, Watchdog.Slot slot, T message, MessageMetadata metadata, Object context) {
            this.job = job;
            this.slot = slot;
            this.message = message;
            this.metadata = metadata;
            this.context = context;
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
