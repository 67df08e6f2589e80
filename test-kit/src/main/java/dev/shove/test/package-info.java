/**
 * The shove test kit: annotate a test class with {@link dev.shove.test.ShoveTest}, take a {@link
 * dev.shove.test.ShoveKit} (or the {@link dev.shove.Broker} itself) as a parameter, and assert on what was published
 * and on each message's {@link dev.shove.test.Journey journey} with {@link dev.shove.test.ShoveAssertions}.
 * {@code docs/concepts/testing.md} describes it.
 */
@NullMarked
package dev.shove.test;

import org.jspecify.annotations.NullMarked;
