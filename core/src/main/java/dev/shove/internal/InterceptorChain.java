package dev.shove.internal;

import dev.shove.HandlerInterceptor;
import dev.shove.Invocation;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.util.List;

/**
 * The interceptors of a registration around its handler, outermost first. With no interceptors a call goes straight
 * to the handler, allocating nothing.
 */
final class InterceptorChain<T, C> {
    private final Topic<T> topic;
    private final HandlerInterceptor[] interceptors;
    private final MessageHandler<T, ? super C> handler;

    InterceptorChain(Topic<T> topic, List<HandlerInterceptor> interceptors, MessageHandler<T, ? super C> handler) {
        this.topic = topic;
        this.interceptors = interceptors.toArray(HandlerInterceptor[]::new);
        this.handler = handler;
    }

    Outcome call(T message, MessageMetadata metadata, C context) throws Exception {
        if (interceptors.length == 0) {
            return handler.handle(message, metadata, context);
        }
        return new Call(message, metadata, context).proceed();
    }

    /** One call travelling down the chain. */
    private final class Call implements Invocation {
        private final T message;
        private final MessageMetadata metadata;
        private Object context;
        private int next;

        Call(T message, MessageMetadata metadata, Object context) {
            this.message = message;
            this.metadata = metadata;
            this.context = context;
        }

        @Override
        public Topic<?> topic() {
            return topic;
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
