/**
 * shove's Avro codec, over org.apache.avro. Its API takes Avro schemas and records, so it requires Avro transitively.
 * Applications whose generated record classes live in a module of their own open their package to {@code
 * org.apache.avro} (Avro creates and fills specific records by reflection).
 */
module dev.shove.codec.avro {
    requires transitive dev.shove;
    requires transitive org.apache.avro;

    exports dev.shove.codec.avro;
}
