package dev.shove;

/**
 * One handler call as an {@link HandlerInterceptor} sees it. Belongs to the calling thread: call {@link #proceed}
 * at most once, on that thread, before returning. Once the call has returned, the same object may serve the worker's
 * next message: keep what you need of it (its message, its metadata), never the invocation itself.
 *
 * @since 0.1.0
 */
public interface Invocation {

    /** {@return the topic the message was consumed from} */
    Topic<?> topic();

    /** {@return the consumer group the registration belongs to: its {@code groupName}, by default the topic's name} */
    String groupName();

    /** {@return the decoded message} */
    Object message();

    /** {@return the delivery's metadata} */
    MessageMetadata metadata();

    /** {@return the context the handler will receive (the group's, unless an outer interceptor replaced it)} */
    Object context();

    /**
     * Runs the rest of the chain (the next interceptor, finally the handler).
     *
     * @return the outcome the rest of the chain decided
     * @throws Exception what the rest of the chain threw
     */
    Outcome proceed() throws Exception;

    /**
     * Runs the rest of the chain with another context, e.g. the group's context enriched for this message. The value
     * must be of the handler's context type.
     *
     * @param context what the rest of the chain receives as its context
     * @return the outcome the rest of the chain decided
     * @throws Exception what the rest of the chain threw
     */
    Outcome proceed(Object context) throws Exception;
}
