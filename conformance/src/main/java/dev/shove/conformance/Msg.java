package dev.shove.conformance;

/**
 * The message type of most contracts: a key (the ordering key on sequenced topics) and a number, encoded as JSON by
 * the default codec.
 *
 * @param key the ordering key on sequenced topics; a label elsewhere
 * @param n a number that identifies the message within its test
 */
public record Msg(String key, int n) {

    /** A message with key {@code k} and number {@code n}. */
    public static Msg of(int n) {
        return new Msg("k", n);
    }

    /** {@code key + n}, e.g. {@code a3}, for readable order assertions. */
    public String label() {
        return key + n;
    }
}
