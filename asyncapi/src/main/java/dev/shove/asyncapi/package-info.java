/**
 * AsyncAPI 3.0 documents of shove topics: start with {@link dev.shove.asyncapi.AsyncApi}; {@code
 * docs/concepts/asyncapi.md} describes how each shove concept maps and the {@code x-shove-} extensions.
 */
@NullMarked
package dev.shove.asyncapi;

import org.jspecify.annotations.NullMarked;
