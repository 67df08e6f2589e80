/** shove's Redis Streams backend, over lettuce-core. */
module dev.shove.redis {
    requires transitive dev.shove;
    requires lettuce.core;

    exports dev.shove.redis;

    provides dev.shove.spi.BrokerConfigProvider with
            dev.shove.redis.RedisConfigProvider;
}
