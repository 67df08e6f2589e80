package dev.shove.spi;

import org.jspecify.annotations.Nullable;

/** Told once when a {@link Settlement} has been carried out, or has failed. Must return quickly. */
@FunctionalInterface
public interface SettleCallback {
    /**
     * @param failure null when the broker durably took the settlement; otherwise why it could not, in which case the
     *     message is left for redelivery
     */
    void settled(@Nullable Throwable failure);
}
