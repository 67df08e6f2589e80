package dev.shove.internal;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOptions;
import dev.shove.MessageHandler;
import java.util.Objects;
import java.util.function.Supplier;

/** What a registration runs: a single-message handler factory, or a batch handler factory with its batch options. */
sealed interface HandlerSpec<T, C> {

    /** One message per call. */
    record Single<T, C>(Supplier<? extends MessageHandler<T, ? super C>> factory) implements HandlerSpec<T, C> {
        public Single {
            Objects.requireNonNull(factory, "factory");
        }
    }

    /** A batch per call. */
    record Batch<T, C>(Supplier<? extends BatchMessageHandler<T, ? super C>> factory, BatchOptions options)
            implements HandlerSpec<T, C> {
        public Batch {
            Objects.requireNonNull(factory, "factory");
            Objects.requireNonNull(options, "options");
        }
    }
}
