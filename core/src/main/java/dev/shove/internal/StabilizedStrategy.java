package dev.shove.internal;

import dev.shove.ScalingDecision;
import dev.shove.ScalingMetrics;
import dev.shove.ScalingStrategy;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Damps another strategy: a wish to scale must persist for the hysteresis before it is acted on, and no action
 * follows another within the cooldown. A hold, or a wish in the other direction, restarts the wait. State is kept
 * per group; the clock is injected so tests need no sleeps.
 */
public final class StabilizedStrategy implements ScalingStrategy {
    private final ScalingStrategy inner;
    private final long hysteresisNanos;
    private final long cooldownNanos;
    private final LongSupplier nanoTime;
    private final Map<String, State> states = new HashMap<>();

    private static final class State {
        long upSince = -1;
        long downSince = -1;
        long lastScaledAt = -1;
    }

    public StabilizedStrategy(ScalingStrategy inner, Duration hysteresis, Duration cooldown, LongSupplier nanoTime) {
        this.inner = inner;
        this.hysteresisNanos = hysteresis.toNanos();
        this.cooldownNanos = cooldown.toNanos();
        this.nanoTime = nanoTime;
    }

    @Override
    public synchronized ScalingDecision evaluate(String group, ScalingMetrics metrics) {
        State state = states.computeIfAbsent(group, g -> new State());
        long now = nanoTime.getAsLong();
        if (state.lastScaledAt >= 0 && now - state.lastScaledAt < cooldownNanos) {
            return ScalingDecision.hold();
        }
        ScalingDecision wish = inner.evaluate(group, metrics);
        if (wish.delta() > 0) {
            state.downSince = -1;
            if (state.upSince < 0) {
                state.upSince = now;
            }
            if (now - state.upSince >= hysteresisNanos) {
                state.lastScaledAt = now;
                state.upSince = -1;
                return wish;
            }
        } else if (wish.delta() < 0) {
            state.upSince = -1;
            if (state.downSince < 0) {
                state.downSince = now;
            }
            if (now - state.downSince >= hysteresisNanos) {
                state.lastScaledAt = now;
                state.downSince = -1;
                return wish;
            }
        } else {
            state.upSince = -1;
            state.downSince = -1;
        }
        return ScalingDecision.hold();
    }
}
