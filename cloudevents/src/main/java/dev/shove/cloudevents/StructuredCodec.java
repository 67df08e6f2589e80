package dev.shove.cloudevents;

import dev.shove.Codec;
import io.cloudevents.CloudEvent;
import io.cloudevents.CloudEventData;
import io.cloudevents.core.builder.CloudEventBuilder;
import io.cloudevents.jackson.JsonFormat;

/** The JSON event format around data of another codec: the codec of a structured-mode topic. */
final class StructuredCodec<T> implements Codec<CloudEventMessage<T>> {
    private static final JsonFormat FORMAT = new JsonFormat();

    private final Codec<T> data;

    StructuredCodec(Codec<T> data) {
        this.data = data;
    }

    /** The codec of the events' data. */
    Codec<T> dataCodec() {
        return data;
    }

    @Override
    public byte[] encode(CloudEventMessage<T> message) throws Exception {
        CloudEvent event = CloudEventBuilder.fromContext(message.event())
                .withDataContentType(data.contentType())
                .withData(data.encode(message.data()))
                .build();
        return FORMAT.serialize(event);
    }

    @Override
    public CloudEventMessage<T> decode(byte[] payload) throws Exception {
        CloudEvent event = FORMAT.deserialize(payload);
        CloudEventData bytes = event.getData();
        if (bytes == null) {
            throw new IllegalArgumentException(
                    "CloudEvent '" + event.getId() + "' has no data; " + data.name() + " has nothing to decode");
        }
        return new CloudEventMessage<>(event, data.decode(bytes.toBytes()));
    }

    @Override
    public String contentType() {
        return CloudEventMessage.STRUCTURED_CONTENT_TYPE;
    }

    @Override
    public String name() {
        return "cloudevents+json(" + data.name() + ")";
    }
}
