package dev.shove.kafka;

import dev.shove.ShoveException;
import dev.shove.spi.SettleCallback;
import java.util.List;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Answers the settle callbacks of one consumer: a failure names the topic, and a callback that throws is logged rather
 * than let out, so it cannot kill the poll thread. Holds no state beyond the names, so any thread may use it (the poll
 * thread does, and settling threads once the poll thread has finished).
 */
final class SettleCallbacks {
    private static final Logger log = LoggerFactory.getLogger(SettleCallbacks.class);

    private final String queue;
    private final String consumerId;

    SettleCallbacks(String queue, String consumerId) {
        this.queue = queue;
        this.consumerId = consumerId;
    }

    /** Confirms every callback of {@code callbacks} and empties it. */
    void succeed(List<SettleCallback> callbacks) {
        for (SettleCallback cb : callbacks) {
            invoke(cb, null);
        }
        callbacks.clear();
    }

    /** Fails every callback of {@code callbacks} with {@code why} and empties it. */
    void fail(List<SettleCallback> callbacks, String why) {
        if (callbacks.isEmpty()) {
            return;
        }
        ShoveException failure = new ShoveException("topic '" + queue + "': " + why);
        for (SettleCallback cb : callbacks) {
            invoke(cb, failure);
        }
        callbacks.clear();
    }

    void fail(SettleCallback callback, String why) {
        invoke(callback, new ShoveException("topic '" + queue + "': " + why));
    }

    private void invoke(SettleCallback callback, @Nullable Throwable failure) {
        try {
            callback.settled(failure);
        } catch (RuntimeException e) {
            log.error("a settle callback of consumer {} threw", consumerId, e);
        }
    }
}
