package dev.shove.opentelemetry;

import io.opentelemetry.context.propagation.TextMapGetter;
import io.opentelemetry.context.propagation.TextMapSetter;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Message headers as a propagation carrier: read from any map, written into a mutable one. */
enum HeaderCarrier implements TextMapGetter<Map<String, String>>, TextMapSetter<Map<String, String>> {
    INSTANCE;

    @Override
    public @Nullable String get(@Nullable Map<String, String> carrier, String key) {
        return carrier == null ? null : carrier.get(key);
    }

    @Override
    public void set(@Nullable Map<String, String> carrier, String key, String value) {
        if (carrier != null) {
            carrier.put(key, value);
        }
    }
}
