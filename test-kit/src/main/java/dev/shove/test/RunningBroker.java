package dev.shove.test;

/** A broker the kit started for the test run (in a container); closed when the run ends. */
interface RunningBroker extends AutoCloseable {

    /** The broker URI a backend reads ({@link dev.shove.BrokerConfig#fromUri}). */
    String uri();

    /** What runs, for logs: the backend and its image. */
    String description();

    /** Stops the broker. */
    @Override
    void close();
}
