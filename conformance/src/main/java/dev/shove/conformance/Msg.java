package dev.shove.conformance;

/**
 * The message type of most contracts: a key (the ordering key on sequenced topics) and a number, encoded as JSON by
 * the default codec.
 *
 * @param key the ordering key on sequenced topics; a label elsewhere
 * @param n a number that identifies the message within its test
 * @since 0.1.0
 */
public record Msg(String key, int n) {

    /**
     * {@return a message with key {@code k} and number {@code n}}
     *
     * @param n a number that identifies the message within its test
     */
    public static Msg of(int n) {
        return new Msg("k", n);
    }

    /** {@return {@code key + n}, e.g. {@code a3}, for readable order assertions} */
    public String label() {
        return key + n;
    }
}
