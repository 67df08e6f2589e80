package dev.shove.spring.boot;

import dev.shove.NoContext;
import java.util.Objects;

/**
 * The context the starter's consumer group gives every handler ({@link dev.shove.ConsumerGroup#withContext}): declare
 * one bean of this type; without one, handlers get {@link NoContext#INSTANCE}. Immutable; the value it holds is shared
 * by every handler, so it must be thread-safe.
 *
 * <pre>{@code
 * @Bean
 * GroupContext<Inventory> shoveContext(Inventory inventory) {
 *     return GroupContext.of(inventory);
 * }
 * }</pre>
 *
 * @param value what every handler receives as its context
 * @param <C> the context's type: the {@code C} of the {@link TopicRegistration} beans
 * @since 0.1.0
 */
public record GroupContext<C>(C value) {
    /**
     * Checks the component.
     *
     * @param value what every handler receives as its context
     */
    public GroupContext {
        Objects.requireNonNull(value, "value");
    }

    /**
     * {@return a context holding {@code value}}
     *
     * @param value what every handler receives as its context
     * @param <C> the context's type
     */
    public static <C> GroupContext<C> of(C value) {
        return new GroupContext<>(value);
    }
}
