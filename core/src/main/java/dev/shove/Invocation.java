package dev.shove;

/**
 * One handler call as an {@link HandlerInterceptor} sees it. Belongs to the calling thread: call {@link #proceed}
 * at most once, on that thread, before returning.
 */
public interface Invocation {

    /** The topic the message was consumed from. */
    Topic<?> topic();

    /** The consumer group the registration belongs to: its {@code groupName}, by default the topic's name. */
    String groupName();

    /** The decoded message. */
    Object message();

    /** The delivery's metadata. */
    MessageMetadata metadata();

    /** The context the handler will receive (the group's, unless an outer interceptor replaced it). */
    Object context();

    /** Runs the rest of the chain (the next interceptor, finally the handler) and returns its outcome. */
    Outcome proceed() throws Exception;

    /**
     * Runs the rest of the chain with another context, e.g. the group's context enriched for this message. The value
     * must be of the handler's context type.
     */
    Outcome proceed(Object context) throws Exception;
}
