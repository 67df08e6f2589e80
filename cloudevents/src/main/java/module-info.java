/**
 * shove's CloudEvents support. Its API takes and returns the CloudEvents SDK's types ({@code CloudEventContext}), so
 * it requires the SDK's API transitively.
 */
module dev.shove.cloudevents {
    requires transitive dev.shove;
    requires transitive io.cloudevents.api;
    requires io.cloudevents.core;
    requires io.cloudevents.formats.jackson;

    exports dev.shove.cloudevents;
}
