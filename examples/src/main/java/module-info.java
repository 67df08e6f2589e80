/**
 * shove's runnable examples, on the in-memory broker. Their message and header records are read by Jackson (the JSON
 * codec) and by shove (header contracts), so the package is open to both; {@code ModulePathTest} runs every example
 * on the module path.
 */
module dev.shove.examples {
    requires dev.shove.memory;
    requires java.net.http;
    requires jdk.httpserver;
    requires static org.jspecify;

    opens dev.shove.examples to
            com.fasterxml.jackson.databind,
            dev.shove;
}
