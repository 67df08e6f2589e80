package dev.shove.spi;

import java.util.Map;
import java.util.Objects;

/**
 * Builds a received message's headers as one of the JDK's immutable maps ({@link Map#of}, {@link Map#ofEntries}), for
 * {@link Delivery#headers()}. {@code MessageMetadata} keeps such a map as it is ({@code Map.copyOf} returns it
 * unchanged), so a transport that builds its headers here makes one small map per message instead of a {@code HashMap}
 * and the engine's immutable copy of it.
 *
 * <p>A name put again takes the later value (as a map's {@code put} would). Not thread-safe; one builder per message.
 *
 * @since 0.1.0
 */
public final class HeaderMapBuilder {
    private final String[] slots;
    private int size;

    /**
     * A builder with room for {@code most} distinct names.
     *
     * @param most the most names that will be put (every name distinct); more throws
     */
    public HeaderMapBuilder(int most) {
        if (most < 0) {
            throw new IllegalArgumentException("room for " + most + " headers; must not be negative");
        }
        this.slots = new String[2 * most];
    }

    /**
     * Puts one header; a name already put takes this value.
     *
     * @param name the header's name
     * @param value its value
     * @return this builder
     * @throws IllegalStateException when more distinct names are put than the builder has room for
     */
    public HeaderMapBuilder put(String name, String value) {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(value, "value");
        for (int i = 0; i < size; i++) {
            if (slots[2 * i].equals(name)) {
                slots[2 * i + 1] = value;
                return this;
            }
        }
        if (2 * size == slots.length) {
            throw new IllegalStateException("room for " + size + " headers only; header '" + name
                    + "' is one more than the builder was made for");
        }
        slots[2 * size] = name;
        slots[2 * size + 1] = value;
        size++;
        return this;
    }

    /** {@return the headers put so far, as an immutable map} */
    public Map<String, String> build() {
        String[] p = slots;
        return switch (size) {
            case 0 -> Map.of();
            case 1 -> Map.of(p[0], p[1]);
            case 2 -> Map.of(p[0], p[1], p[2], p[3]);
            case 3 -> Map.of(p[0], p[1], p[2], p[3], p[4], p[5]);
            default -> {
                @SuppressWarnings({"unchecked", "rawtypes"})
                Map.Entry<String, String>[] entries = new Map.Entry[size];
                for (int i = 0; i < size; i++) {
                    entries[i] = Map.entry(p[2 * i], p[2 * i + 1]);
                }
                yield Map.ofEntries(entries);
            }
        };
    }
}
