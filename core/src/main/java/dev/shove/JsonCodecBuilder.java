package dev.shove;

import com.fasterxml.jackson.databind.ObjectMapper;
import java.lang.reflect.Type;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Builds a JSON codec with settings other than {@link Codec#json(Class)}'s: the application's own Jackson mapper, or
 * leniency about missing fields. Start one with {@link Codec#jsonBuilder(Class)} or {@link
 * Codec#jsonBuilder(com.fasterxml.jackson.core.type.TypeReference)}; by default it builds exactly what {@code
 * Codec.json} does (shove's mapper, strict). Each setting may be given once; a second call fails naming it. Not
 * thread-safe; the codec it builds is.
 *
 * <pre>{@code
 * Codec<OrderPaid> legacy = Codec.jsonBuilder(OrderPaid.class).lenient().build();
 * }</pre>
 *
 * @param <M> the message type
 * @since 0.1.0
 */
public final class JsonCodecBuilder<M> {
    private final Type type;
    private @Nullable ObjectMapper mapper;
    private boolean lenient;

    JsonCodecBuilder(Type type) {
        this.type = Objects.requireNonNull(type, "type");
    }

    /**
     * Reads and writes through the given mapper instead of shove's. Its configuration applies as it is, unknown
     * properties included (Jackson's own default fails on them; shove's mapper ignores them). A strict codec adds its
     * required-field rule to a copy made here ({@link ObjectMapper#copy()}), so later changes to {@code mapper} do not
     * reach it; a lenient codec uses {@code mapper} itself, which must not change after this call.
     *
     * @param mapper the mapper to use
     * @return this builder
     * @throws IllegalStateException if a mapper was already given
     */
    public JsonCodecBuilder<M> mapper(ObjectMapper mapper) {
        Objects.requireNonNull(mapper, "mapper");
        if (this.mapper != null) {
            throw new IllegalStateException("the JSON codec's mapper was already set");
        }
        this.mapper = mapper;
        return this;
    }

    /**
     * Decodes leniently, as Jackson does unconfigured: a missing field reads as null (0, false for primitives), a JSON
     * null reads as 0 or false for a primitive. For topics whose producers are known to leave fields out and whose
     * handlers check for it; the default refuses such messages as decode failures naming the field.
     *
     * @return this builder
     * @throws IllegalStateException if already called
     */
    public JsonCodecBuilder<M> lenient() {
        if (lenient) {
            throw new IllegalStateException("the JSON codec was already made lenient");
        }
        lenient = true;
        return this;
    }

    /**
     * {@return the codec} Thread-safe.
     *
     * @throws IllegalArgumentException if the codec is strict and the mapper given cannot be copied (its class does
     *     not override {@link ObjectMapper#copy()})
     */
    public Codec<M> build() {
        return JsonCodec.of(type, mapper, !lenient);
    }
}
