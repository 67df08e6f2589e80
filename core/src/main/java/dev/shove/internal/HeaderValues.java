package dev.shove.internal;

/**
 * The one rule for what a header value may hold, so that every backend can carry it: any Unicode text except control
 * characters (U+0000 to U+001F, but for the tab, and U+007F), unpaired surrogates and the non-characters U+FFFE and
 * U+FFFF. A backend whose broker takes less (NATS: printable ASCII) encodes such values itself and decodes them back.
 */
final class HeaderValues {
    private HeaderValues() {}

    /** The index of the first character the rule refuses, or -1 when {@code value} may be carried. */
    static int firstRefused(String value) {
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            if (c >= 0x20 && c < 0x7f) {
                continue; // the common case first
            }
            if (c == '\t' || (c > 0x7f && c < Character.MIN_SURROGATE)) {
                continue;
            }
            if (Character.isHighSurrogate(c)
                    && i + 1 < value.length()
                    && Character.isLowSurrogate(value.charAt(i + 1))) {
                i++;
                continue;
            }
            if (c > Character.MAX_SURROGATE && c != 0xfffe && c != 0xffff) {
                continue;
            }
            return i;
        }
        return -1;
    }

    /**
     * Refuses a value the rule does not allow, naming the header, the topic and the character.
     *
     * @throws IllegalArgumentException when {@code value} holds a refused character
     */
    static void check(String what, String value, String topic) {
        int at = firstRefused(value);
        if (at >= 0) {
            throw new IllegalArgumentException(
                    ("%s holds the character U+%04X at index %d (publishing to topic '%s'): a"
                                    + " header value may be any text but control characters (other than tab), unpaired"
                                    + " surrogates and U+FFFE/U+FFFF, which some brokers cannot carry; encode the value (Base64,"
                                    + " percent-encoding) or remove the character")
                            .formatted(what, (int) value.charAt(at), at, topic));
        }
    }
}
