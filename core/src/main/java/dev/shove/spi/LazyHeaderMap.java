package dev.shove.spi;

import java.util.AbstractMap;
import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * A received message's headers as an immutable map that decodes a value from its wire form only when it is read, for
 * {@link Delivery#headers()} of a transport whose headers arrive as bytes. Most messages are handled without anyone
 * reading most of their headers (the engine looks up a few names that are usually absent), so a message whose
 * headers are never read costs no string per value. {@code MessageMetadata} keeps such a map as it is, like the JDK's
 * immutable maps ({@link HeaderMapBuilder}).
 *
 * <p>A subclass translates: {@link #find} looks one name up (the last header of that name wins, as in {@link
 * HeaderMapBuilder}), {@link #decodeAll} decodes every header. Its source must not change once the map is handed to
 * the engine. A lookup ({@link #get}, {@link #containsKey}, {@link #getOrDefault}) asks {@link #find} each time; any
 * operation on the whole map (its size, iteration, equality) decodes every header once into a JDK map and answers from
 * that, and so do lookups after it. Thread-safe: two threads that race to decode the whole map build equal maps and
 * keep one.
 *
 * @since 0.1.0
 */
public abstract class LazyHeaderMap extends AbstractMap<String, String> {
    private volatile @Nullable Map<String, String> decoded;

    /** For subclasses. */
    protected LazyHeaderMap() {}

    /**
     * Looks up one header.
     *
     * @param name the header's name
     * @return the value of the last header with this name, decoded; null when there is none
     */
    protected abstract @Nullable String find(String name);

    /**
     * Decodes every header into {@code into}, in the order they arrived (a name given again takes the later value).
     *
     * @param into takes each header's name and decoded value
     */
    protected abstract void decodeAll(BiConsumer<String, String> into);

    /** {@return every header, decoded once} */
    private Map<String, String> decoded() {
        Map<String, String> all = decoded;
        if (all == null) {
            Map<String, String> building = new HashMap<>();
            decodeAll(building::put);
            all = Map.copyOf(building);
            decoded = all;
        }
        return all;
    }

    @Override
    public @Nullable String get(@Nullable Object name) {
        if (!(name instanceof String s)) {
            return null;
        }
        Map<String, String> all = decoded;
        return all != null ? all.get(s) : find(s);
    }

    @Override
    public boolean containsKey(@Nullable Object name) {
        return get(name) != null;
    }

    @Override
    public String getOrDefault(@Nullable Object name, String otherwise) {
        String value = get(name);
        return value != null ? value : otherwise;
    }

    @Override
    public int size() {
        return decoded().size();
    }

    @Override
    public boolean isEmpty() {
        return decoded().isEmpty();
    }

    @Override
    public boolean containsValue(@Nullable Object value) {
        return value != null && decoded().containsValue(value);
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return decoded().entrySet();
    }

    @Override
    public Set<String> keySet() {
        return decoded().keySet();
    }

    @Override
    public Collection<String> values() {
        return decoded().values();
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        decoded().forEach(action);
    }
}
