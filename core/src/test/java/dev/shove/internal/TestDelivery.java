package dev.shove.internal;

import dev.shove.ShoveHeaders;
import dev.shove.spi.Delivery;
import java.util.HashMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** A delivery as a transport would hand it over, for the engine tests that need {@link Job}s. */
record TestDelivery(String deliveryId, String queue, Map<String, String> headers, byte[] payload) implements Delivery {

    static TestDelivery of(String deliveryId) {
        return new TestDelivery(deliveryId, "orders", Map.of(), new byte[0]);
    }

    static TestDelivery withHeader(String deliveryId, String name, String value) {
        return new TestDelivery(deliveryId, "orders", Map.of(name, value), new byte[0]);
    }

    /** A job of the given key as the engine would create it on receipt (not started). */
    static Job job(String deliveryId, @Nullable String key) {
        Map<String, String> headers = new HashMap<>();
        if (key != null) {
            headers.put(ShoveHeaders.SEQUENCE_KEY, key);
        }
        return new Job(null, new TestDelivery(deliveryId, "orders", headers, new byte[0]), key, 0);
    }
}
