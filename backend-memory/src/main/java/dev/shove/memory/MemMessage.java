package dev.shove.memory;

import java.util.Map;

/** A message held by the in-memory broker. Its position and delivery count are guarded by its queue's lock. */
final class MemMessage {
    final byte[] payload;
    final Map<String, String> headers;
    final long timestampMs;
    /** Order of arrival in its queue, assigned on first enqueue; a returned message goes back to its place. */
    long position;

    int deliveries;

    MemMessage(byte[] payload, Map<String, String> headers, long timestampMs) {
        this.payload = payload;
        this.headers = headers;
        this.timestampMs = timestampMs;
    }
}
