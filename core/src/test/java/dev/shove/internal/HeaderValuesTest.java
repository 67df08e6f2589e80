package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class HeaderValuesTest {

    @Test
    @DisplayName("text in any script, emoji (surrogate pairs), a tab and the empty string may be carried")
    void textAllowed() {
        for (String value : new String[] {"", "plain", "Jürgen Müller", "北京", "\uD83D\uDE00 ok", "a\tb", "\u00a0"}) {
            assertThat(HeaderValues.firstRefused(value)).as(value).isEqualTo(-1);
        }
    }

    @Test
    @DisplayName("control characters, DEL, unpaired surrogates and U+FFFE/U+FFFF are refused at their index")
    void refused() {
        assertThat(HeaderValues.firstRefused("line\nbreak")).isEqualTo(4);
        assertThat(HeaderValues.firstRefused("\u0000")).isZero();
        assertThat(HeaderValues.firstRefused("del\u007f")).isEqualTo(3);
        assertThat(HeaderValues.firstRefused("lone \uD83D")).isEqualTo(5);
        assertThat(HeaderValues.firstRefused("\uDE00 low first")).isZero();
        assertThat(HeaderValues.firstRefused("x\uffff")).isEqualTo(1);
    }

    @Test
    @DisplayName("a refused value is an IllegalArgumentException naming the header, the character and the topic")
    void message() {
        assertThatThrownBy(() -> HeaderValues.check("header 'x-note'", "a\rb", "orders"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith(
                        "header 'x-note' holds the character U+000D at index 1 (publishing to topic 'orders')");
    }
}
