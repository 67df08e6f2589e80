/** shove's NATS JetStream backend, over jnats. */
module dev.shove.nats {
    requires transitive dev.shove;
    requires io.nats.jnats;

    exports dev.shove.nats;

    provides dev.shove.spi.BrokerConfigProvider with
            dev.shove.nats.NatsConfigProvider;
}
