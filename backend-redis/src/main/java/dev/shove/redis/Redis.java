package dev.shove.redis;

/** The marker type of the Redis Streams backend: {@code Broker<Redis>}. Never instantiated. */
public final class Redis {
    private Redis() {}
}
