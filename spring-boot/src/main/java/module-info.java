/**
 * shove's Spring Boot starter: auto-configuration of a broker, a consumer group of the application's registration
 * beans, its lifecycle and exit code, an Actuator health contributor and tracing. Spring's jars are automatic modules.
 */
module dev.shove.spring.boot {
    requires transitive dev.shove;
    requires dev.shove.memory;
    requires transitive spring.boot;
    requires transitive spring.boot.autoconfigure;
    requires transitive spring.context;
    requires transitive spring.beans;
    requires transitive spring.core;
    // optional: the health contributor and tracing are configured only when these are present
    requires static transitive spring.boot.health;
    requires static transitive dev.shove.opentelemetry;
    requires static transitive io.opentelemetry.api;

    exports dev.shove.spring.boot;

    // Spring reads the configuration classes and binds the properties reflectively.
    opens dev.shove.spring.boot to
            spring.core,
            spring.beans,
            spring.context,
            spring.boot;
}
