package dev.shove.internal;

import dev.shove.ShoveHeaders;
import dev.shove.spi.LazyHeaderMap;
import java.util.Collection;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.BiConsumer;
import org.jspecify.annotations.Nullable;

/**
 * The headers of a message published without any of its own: only {@value ShoveHeaders#MESSAGE_ID}, kept as the id's
 * 128 bits and formatted as the UUID string the first time anyone reads it. On the in-memory broker most messages are
 * handled without anyone reading their id, so they cost no string for it (~80 bytes); a transport that writes the
 * headers out formats it once, as before. Immutable; thread-safe (two threads that race to format the id build equal
 * strings and keep one).
 */
final class MessageIdHeaders extends LazyHeaderMap {
    private final long mostSignificantBits;
    private final long leastSignificantBits;
    private @Nullable String formatted;

    private MessageIdHeaders(long mostSignificantBits, long leastSignificantBits) {
        this.mostSignificantBits = mostSignificantBits;
        this.leastSignificantBits = leastSignificantBits;
    }

    /** A fresh message id ({@link Ids#newMessageId()}'s kind), not yet formatted. */
    static MessageIdHeaders fresh() {
        ThreadLocalRandom r = ThreadLocalRandom.current();
        return new MessageIdHeaders(Ids.mostSignificantBits(r), Ids.leastSignificantBits(r));
    }

    /** {@return the message id, formatted once} */
    String messageId() {
        String id = formatted;
        if (id == null) {
            id = new UUID(mostSignificantBits, leastSignificantBits).toString();
            formatted = id;
        }
        return id;
    }

    @Override
    protected @Nullable String find(String name) {
        return ShoveHeaders.MESSAGE_ID.equals(name) ? messageId() : null;
    }

    @Override
    protected void decodeAll(BiConsumer<String, String> into) {
        into.accept(ShoveHeaders.MESSAGE_ID, messageId());
    }

    // The whole map is one entry: answered directly, without the decoded copy LazyHeaderMap builds for them.

    @Override
    public int size() {
        return 1;
    }

    @Override
    public boolean isEmpty() {
        return false;
    }

    @Override
    public boolean containsValue(@Nullable Object value) {
        return messageId().equals(value);
    }

    @Override
    public Set<Entry<String, String>> entrySet() {
        return Set.of(Map.entry(ShoveHeaders.MESSAGE_ID, messageId()));
    }

    @Override
    public Set<String> keySet() {
        return Set.of(ShoveHeaders.MESSAGE_ID);
    }

    @Override
    public Collection<String> values() {
        return Set.of(messageId());
    }

    @Override
    public void forEach(BiConsumer<? super String, ? super String> action) {
        action.accept(ShoveHeaders.MESSAGE_ID, messageId());
    }
}
