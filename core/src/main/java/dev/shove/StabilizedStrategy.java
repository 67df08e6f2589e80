package dev.shove;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.function.LongSupplier;

/**
 * Damps another strategy: a wish to scale must persist for the hysteresis before it is acted on, and no action
 * follows another within the cooldown. A hold, or a wish in the other direction, restarts the wait. State is kept
 * per group; the clock is injected so tests need no sleeps.
 */
final class StabilizedStrategy implements ScalingStrategy {
    private final ScalingStrategy inner;
    private final long hysteresisNanos;
    private final long cooldownNanos;
    private final LongSupplier nanoTime;
    private final Map<String, State> states = new HashMap<>();

    /**
     * Timestamps from the injected clock, each with a flag saying whether it is set: {@link System#nanoTime()} has an
     * arbitrary origin and may be negative, so no clock value can serve as "unset".
     */
    private static final class State {
        boolean wantsUp;
        long upSince;
        boolean wantsDown;
        long downSince;
        boolean scaled;
        long lastScaledAt;
    }

    StabilizedStrategy(ScalingStrategy inner, Duration hysteresis, Duration cooldown, LongSupplier nanoTime) {
        this.inner = inner;
        this.hysteresisNanos = hysteresis.toNanos();
        this.cooldownNanos = cooldown.toNanos();
        this.nanoTime = nanoTime;
    }

    @Override
    public synchronized ScalingDecision evaluate(String group, ScalingMetrics metrics) {
        State state = states.computeIfAbsent(group, g -> new State());
        long now = nanoTime.getAsLong();
        if (state.scaled && now - state.lastScaledAt < cooldownNanos) {
            return ScalingDecision.hold();
        }
        ScalingDecision wish = inner.evaluate(group, metrics);
        if (wish.delta() > 0) {
            state.wantsDown = false;
            if (!state.wantsUp) {
                state.wantsUp = true;
                state.upSince = now;
            }
            if (now - state.upSince >= hysteresisNanos) {
                state.scaled = true;
                state.lastScaledAt = now;
                state.wantsUp = false;
                return wish;
            }
        } else if (wish.delta() < 0) {
            state.wantsUp = false;
            if (!state.wantsDown) {
                state.wantsDown = true;
                state.downSince = now;
            }
            if (now - state.downSince >= hysteresisNanos) {
                state.scaled = true;
                state.lastScaledAt = now;
                state.wantsDown = false;
                return wish;
            }
        } else {
            state.wantsUp = false;
            state.wantsDown = false;
        }
        return ScalingDecision.hold();
    }
}
