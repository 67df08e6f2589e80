/**
 * shove's AsyncAPI generator: an AsyncAPI 3.0 document from an application's topics. Message schemas come from the
 * topics' Java types through victools' JSON Schema generator and its Jackson module. An application whose message
 * types live in a module of its own exports their package (or opens it) to {@code dev.shove.asyncapi} when it reads
 * its topics with {@code AsyncApi.topicsOf}.
 */
module dev.shove.asyncapi {
    requires transitive dev.shove;
    requires com.github.victools.jsonschema.generator;
    requires com.github.victools.jsonschema.module.jackson;
    requires com.fasterxml.classmate;
    requires static org.jspecify;

    exports dev.shove.asyncapi;
}
