package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PoisonedKeysTest {
    private final AtomicLong now = new AtomicLong(1_000);
    private final AtomicInteger gauge = new AtomicInteger();
    private final PoisonedKeys keys = new PoisonedKeys(100, 3, now::get, gauge);

    @Test
    @DisplayName("a poisoned key stays poisoned while its lane holds messages")
    void activeStays() {
        assertThat(keys.poison("a")).isTrue();
        now.addAndGet(10_000);
        assertThat(keys.contains("a")).isTrue();
        assertThat(gauge).hasValue(1);
    }

    @Test
    @DisplayName("once its lane drained, the key is forgotten after the grace period, not before")
    void forgottenAfterGrace() {
        keys.poison("a");
        keys.drained("a");
        now.addAndGet(99);
        assertThat(keys.contains("a")).as("within the grace").isTrue();
        keys.drained("a");
        now.addAndGet(100);
        assertThat(keys.contains("a")).as("after the grace").isFalse();
        assertThat(gauge).hasValue(0);
        assertThat(keys.poison("a")).as("poisoned anew").isTrue();
    }

    @Test
    @DisplayName("a message of the key arriving within the grace keeps it poisoned and restarts the wait")
    void arrivalRearms() {
        keys.poison("a");
        keys.drained("a");
        now.addAndGet(50);
        assertThat(keys.contains("a")).isTrue();
        now.addAndGet(1_000);
        assertThat(keys.contains("a")).as("busy again: no grace running").isTrue();
    }

    @Test
    @DisplayName("past maxKeys the oldest forgettable key goes first, then the least recently used")
    void bounded() {
        keys.poison("a");
        keys.poison("b");
        keys.poison("c");
        keys.drained("b");
        now.addAndGet(200);
        keys.poison("d");
        assertThat(keys.size()).isEqualTo(3);
        assertThat(keys.contains("b")).isFalse();
        keys.poison("e");
        assertThat(keys.size()).isEqualTo(3);
        assertThat(keys.contains("a")).as("the least recently used goes").isFalse();
        assertThat(gauge.get()).isLessThanOrEqualTo(3);
    }
}
