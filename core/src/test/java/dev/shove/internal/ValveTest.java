package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.CircuitBreakerConfig;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ValveTest {
    private final AtomicInteger paused = new AtomicInteger();
    private final AtomicInteger breaker = new AtomicInteger();

    private Valve valve(CircuitBreakerConfig config) {
        return new Valve("orders", config, paused, breaker);
    }

    private static CircuitBreakerConfig consecutive(int n, Duration openFor) {
        return CircuitBreakerConfig.builder()
                .consecutiveFailures(n)
                .openFor(openFor)
                .build();
    }

    private static void stays(java.util.concurrent.Callable<Boolean> condition) {
        Awaitility.await()
                .during(Duration.ofMillis(150))
                .atMost(Duration.ofSeconds(2))
                .until(condition);
    }

    @Test
    @DisplayName("without a breaker and not paused, the valve flows and never waits")
    void flows() throws InterruptedException {
        Valve v = new Valve("orders", null, null, null);
        assertThat(v.isFlowing()).isTrue();
        assertThat(v.awaitOpen()).isFalse();
        v.record(true);
        v.record(true);
        assertThat(v.isFlowing()).isTrue();
    }

    @Test
    @DisplayName("pause shuts it (a waiting worker blocks) and resume opens it again; the paused gauge follows")
    void pauseAndResume() throws Exception {
        Valve v = valve(CircuitBreakerConfig.ofDefaults());
        v.pause();
        assertThat(v.isFlowing()).isFalse();
        assertThat(paused).hasValue(1);
        CompletableFuture<Boolean> waiter = CompletableFuture.supplyAsync(() -> {
            try {
                return v.awaitOpen();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        stays(() -> !waiter.isDone()); // nothing may wake the waiter while paused
        v.resume();
        assertThat(waiter.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(v.isFlowing()).isTrue();
        assertThat(paused).hasValue(0);
    }

    @Test
    @DisplayName("N failures in a row open the breaker; a success in between starts the count again")
    void consecutiveFailuresOpen() {
        Valve v = valve(consecutive(3, Duration.ofMinutes(1)));
        v.record(true);
        v.record(true);
        v.record(false);
        v.record(true);
        v.record(true);
        assertThat(v.breaker()).isEqualTo(Valve.Breaker.CLOSED);
        v.record(true);
        assertThat(v.breaker()).isEqualTo(Valve.Breaker.OPEN);
        assertThat(v.isFlowing()).isFalse();
        assertThat(breaker).hasValue(1);
    }

    @Test
    @DisplayName("after openFor exactly one worker gets the probe; its success closes the breaker")
    void probeSucceeds() throws Exception {
        Valve v = valve(consecutive(1, Duration.ofMillis(50)));
        v.record(true);
        assertThat(v.awaitOpen()).as("the first waiter probes").isTrue();
        assertThat(v.breaker()).isEqualTo(Valve.Breaker.HALF_OPEN);
        assertThat(breaker).hasValue(2);
        CompletableFuture<Boolean> second = CompletableFuture.supplyAsync(() -> {
            try {
                return v.awaitOpen();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
        });
        stays(() -> !second.isDone()); // a second worker must not run while the probe runs
        v.record(false);
        assertThat(second.get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(v.breaker()).isEqualTo(Valve.Breaker.CLOSED);
        assertThat(breaker).hasValue(0);
    }

    @Test
    @DisplayName("a failed probe opens the breaker again for openFor")
    void probeFails() throws Exception {
        Valve v = valve(consecutive(1, Duration.ofMillis(50)));
        v.record(true);
        assertThat(v.awaitOpen()).isTrue();
        v.record(true);
        assertThat(v.breaker()).isEqualTo(Valve.Breaker.OPEN);
        assertThat(v.openFor()).isPositive();
    }

    @Test
    @DisplayName("a probe handed back unused lets the next worker probe")
    void probeReturned() throws Exception {
        Valve v = valve(consecutive(1, Duration.ofMillis(20)));
        v.record(true);
        assertThat(v.awaitOpen()).isTrue();
        v.returnProbe();
        assertThat(v.awaitOpen()).isTrue();
    }

    @Test
    @DisplayName("a failure rate over the window opens the breaker once the window is full")
    void failureRate() {
        Valve v = valve(CircuitBreakerConfig.builder()
                .consecutiveFailures(100)
                .failureRate(0.5, 4)
                .openFor(Duration.ofMinutes(1))
                .build());
        v.record(true);
        v.record(false);
        v.record(true);
        assertThat(v.breaker()).isEqualTo(Valve.Breaker.CLOSED);
        v.record(false);
        assertThat(v.breaker()).as("2 of 4 failed: the rate is reached").isEqualTo(Valve.Breaker.OPEN);
    }
}
