/**
 * shove's Protobuf codec, over protobuf-java. Its API takes Protobuf message classes, so it requires protobuf-java
 * transitively. Applications whose generated classes live in a module of their own export their package (the codec
 * finds each class's parser through its public {@code getDefaultInstance()}).
 */
module dev.shove.codec.protobuf {
    requires transitive dev.shove;
    requires transitive com.google.protobuf;

    exports dev.shove.codec.protobuf;
}
