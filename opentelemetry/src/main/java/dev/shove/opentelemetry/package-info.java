/**
 * Tracing for shove over the OpenTelemetry API: producer spans and W3C trace context on publish, consumer spans on
 * every handler call, and one trace across retries, hold tiers, the dead-letter queue and replies. Start with {@link
 * dev.shove.opentelemetry.ShoveTracing}; {@code docs/concepts/tracing.md} describes the spans and their attributes.
 */
@NullMarked
package dev.shove.opentelemetry;

import org.jspecify.annotations.NullMarked;
