/**
 * CloudEvents on every shove backend: a {@link dev.shove.cloudevents.CloudEventTopic} carries events in binary mode
 * (the attributes in headers, in the broker's protocol binding convention) or structured mode ({@code
 * application/cloudevents+json}); {@link dev.shove.cloudevents.CloudEventPublisher} publishes them with the event id as
 * shove's message id, and a {@link dev.shove.cloudevents.CloudEventHandler} receives the typed data with the event's
 * attributes. {@code docs/concepts/cloudevents.md} describes both modes and the header conventions.
 */
@NullMarked
package dev.shove.cloudevents;

import org.jspecify.annotations.NullMarked;
