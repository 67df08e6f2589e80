package dev.shove.spi;

import org.jspecify.annotations.Nullable;

/**
 * Told once when a {@link Settlement} has been carried out, or has failed. Must return quickly.
 *
 * @since 0.1.0
 */
@FunctionalInterface
public interface SettleCallback {
    /**
     * Called once, on a transport thread, when the settlement is done.
     *
     * @param failure null when the broker durably took the settlement; otherwise why it could not, in which case the
     *     message is left for redelivery
     */
    void settled(@Nullable Throwable failure);
}
