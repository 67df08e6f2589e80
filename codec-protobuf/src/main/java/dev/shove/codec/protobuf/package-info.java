/**
 * A codec for topics of Protobuf messages: {@link dev.shove.codec.protobuf.ProtobufCodec}, for the message classes
 * protoc generates, with schema versions and upcasters ({@link dev.shove.SchemaVersions}). {@code
 * docs/concepts/codecs.md} describes it.
 */
@NullMarked
package dev.shove.codec.protobuf;

import org.jspecify.annotations.NullMarked;
