package dev.shove;

/**
 * The context of a consumer group that was given none with {@link ConsumerGroup#withContext(Object)}. There is one
 * instance.
 *
 * @since 0.1.0
 */
public enum NoContext {
    /** The only instance. */
    INSTANCE
}
