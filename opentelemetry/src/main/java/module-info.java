/**
 * shove's OpenTelemetry tracing. Its API takes and returns OpenTelemetry API types ({@code OpenTelemetry}, {@code
 * Context}, {@code TextMapPropagator}), so it requires the API transitively; the application brings the SDK.
 */
module dev.shove.opentelemetry {
    requires transitive dev.shove;
    requires transitive io.opentelemetry.api;
    requires transitive io.opentelemetry.context;

    exports dev.shove.opentelemetry;
}
