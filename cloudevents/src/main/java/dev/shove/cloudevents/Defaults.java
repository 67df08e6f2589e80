package dev.shove.cloudevents;

import dev.shove.MessageHandler;
import dev.shove.Outcome;

/** The core's default dead-letter handling, for {@link CloudEventHandler}'s defaults to reuse. */
final class Defaults {
    /** A handler whose dead-letter methods are the core's defaults (they log a WARN). */
    static final MessageHandler<Object, Object> HANDLER = (message, metadata, context) -> Outcome.ack();

    private Defaults() {}
}
