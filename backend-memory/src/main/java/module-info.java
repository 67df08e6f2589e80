/** shove's in-process broker: the reference backend, for tests, examples and single-process use. */
module dev.shove.memory {
    requires transitive dev.shove;

    exports dev.shove.memory;

    provides dev.shove.spi.BrokerConfigProvider with
            dev.shove.memory.InMemoryConfigProvider;
}
