package dev.shove;

import java.lang.reflect.Type;
import java.util.Optional;

/** The identity codec: bytes in, the same bytes out. */
final class RawCodec implements Codec<byte[]> {
    static final RawCodec INSTANCE = new RawCodec();

    private RawCodec() {}

    @Override
    public Optional<Type> messageType() {
        return Optional.of(byte[].class);
    }

    @Override
    public byte[] encode(byte[] message) {
        return message;
    }

    @Override
    public byte[] decode(byte[] payload) {
        return payload;
    }

    @Override
    public String contentType() {
        return "application/octet-stream";
    }

    @Override
    public String name() {
        return "raw";
    }
}
