package dev.shove.redis;

/**
 * The marker type of the Redis Streams backend: {@code Broker<Redis>}. Never instantiated.
 *
 * @since 0.1.0
 */
public final class Redis {
    private Redis() {}
}
