/**
 * shove's test kit for applications: a JUnit 5 extension that gives a test a connected broker (in memory by default,
 * a broker URI from the environment, or a container through Testcontainers when a Docker daemon answers), records
 * what was published and what happened to each message, and waits for topics to go idle. Testcontainers is optional:
 * the container path is used only when it is on the class path (on the module path, add it with {@code --add-modules
 * testcontainers}).
 */
module dev.shove.test {
    requires transitive dev.shove;
    requires transitive org.junit.jupiter.api;
    requires dev.shove.memory;
    requires static testcontainers;

    exports dev.shove.test;
}
