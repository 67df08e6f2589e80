/**
 * The conformance kit: the contract tests every backend runs against its real broker, and the helpers its
 * integration tests share.
 */
@NullMarked
package dev.shove.conformance;

import org.jspecify.annotations.NullMarked;
