/**
 * shove's core: the API ({@code dev.shove}), the backend SPI ({@code dev.shove.spi}) and the delivery engine, which
 * stays inside the module. Applications whose message types are records in a module of their own must open (or
 * export) that package to {@code com.fasterxml.jackson.databind} for the JSON codec, and to {@code dev.shove} for
 * header contracts.
 */
module dev.shove {
    requires transitive org.slf4j;
    requires transitive micrometer.core;
    requires transitive com.fasterxml.jackson.databind;
    requires com.fasterxml.jackson.datatype.jsr310;
    requires com.fasterxml.jackson.datatype.jdk8;
    requires jdk.unsupported;
    requires static transitive org.jspecify;

    exports dev.shove;
    exports dev.shove.spi;

    uses dev.shove.spi.Engine.Factory;
    uses dev.shove.spi.BrokerConfigProvider;

    provides dev.shove.spi.Engine.Factory with
            dev.shove.internal.EngineProvider;
}
