/**
 * The fault suite: at-least-once under SIGKILLed consumers and a restarted broker, run by every backend's {@code
 * *FaultIT} ({@link dev.shove.conformance.faults.FaultSuite}) and, with many messages, by {@code scripts/soak.sh}.
 */
@NullMarked
package dev.shove.conformance.faults;

import org.jspecify.annotations.NullMarked;
