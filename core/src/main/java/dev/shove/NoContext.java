package dev.shove;

/**
 * The context of a consumer group that was given none with {@link ConsumerGroup#withContext(Object)}. There is one
 * instance.
 */
public enum NoContext {
    INSTANCE
}
