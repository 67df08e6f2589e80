/**
 * The shove API: typed topics, handlers, outcomes, publishing and consumer groups over any supported broker.
 *
 * <p>Start with {@link dev.shove.Topic} (what flows where), {@link dev.shove.MessageHandler} (what to do with it)
 * and {@link dev.shove.Broker} (where it flows). Everything in this package is non-null unless marked otherwise.
 */
@NullMarked
package dev.shove;

import org.jspecify.annotations.NullMarked;
