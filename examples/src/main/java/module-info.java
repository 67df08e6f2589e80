/**
 * shove's runnable examples, on the in-memory broker. Their message and header records are read by Jackson (the JSON
 * codec) and by shove (header contracts), and their topic constants by the AsyncAPI generator, so the package is open
 * to all three; {@code ModulePathTest} runs every example on the module path.
 */
module dev.shove.examples {
    requires dev.shove.memory;
    requires dev.shove.asyncapi;
    requires dev.shove.cloudevents;
    requires io.cloudevents.core;
    requires io.cloudevents.formats.jackson;
    requires java.net.http;
    requires jdk.httpserver;
    requires static org.jspecify;

    opens dev.shove.examples to
            com.fasterxml.jackson.databind,
            dev.shove,
            dev.shove.asyncapi;
}
