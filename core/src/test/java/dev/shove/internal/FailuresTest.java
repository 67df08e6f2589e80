package dev.shove.internal;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ShoveHeaders;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class FailuresTest {

    @Test
    @DisplayName("a failure becomes its class, its message and its trace with causes, each on one line")
    void describes() {
        Map<String, String> headers = new HashMap<>();
        Failures.describe(new IllegalStateException("ledger\r\ndown", new IOException("socket\tclosed")), headers);

        assertThat(headers.get(ShoveHeaders.EXCEPTION_CLASS)).isEqualTo("java.lang.IllegalStateException");
        assertThat(headers.get(ShoveHeaders.EXCEPTION_MESSAGE)).isEqualTo("ledger  down");
        assertThat(headers.get(ShoveHeaders.EXCEPTION_TRACE))
                .startsWith("java.lang.IllegalStateException: ledger  down | at dev.shove.internal.FailuresTest")
                .contains(" | caused by java.io.IOException: socket closed | at ")
                .doesNotContainPattern("\\p{Cntrl}");
    }

    @Test
    @DisplayName("a huge message and trace are capped, ending in ...")
    void capped() {
        Map<String, String> headers = new HashMap<>();
        Failures.describe(new RuntimeException("x".repeat(100_000), deep(200)), headers);

        assertThat(headers.get(ShoveHeaders.EXCEPTION_MESSAGE))
                .hasSize(Failures.MAX_MESSAGE)
                .endsWith("...");
        assertThat(headers.get(ShoveHeaders.EXCEPTION_TRACE))
                .hasSize(Failures.MAX_TRACE)
                .endsWith("...");
    }

    @Test
    @DisplayName("a cause cycle ends the trace instead of looping")
    void causeCycle() {
        RuntimeException a = new RuntimeException("a");
        RuntimeException b = new RuntimeException("b", a);
        a.initCause(b);
        assertThat(Failures.trace(a))
                .contains("caused by java.lang.RuntimeException: b")
                .hasSizeLessThan(5000);
    }

    @Test
    @DisplayName("without a failure, exception headers from an earlier death are removed")
    void removesStale() {
        Map<String, String> headers = new HashMap<>(Map.of(
                ShoveHeaders.EXCEPTION_CLASS,
                "old",
                ShoveHeaders.EXCEPTION_MESSAGE,
                "old",
                ShoveHeaders.EXCEPTION_TRACE,
                "old",
                "tenant",
                "acme"));
        Failures.describe(null, headers);
        assertThat(headers).containsOnlyKeys("tenant");
    }

    @Test
    @DisplayName("a failure without a message writes no message header")
    void noMessage() {
        Map<String, String> headers = new HashMap<>();
        Failures.describe(new NullPointerException(), headers);
        assertThat(headers).containsKeys(ShoveHeaders.EXCEPTION_CLASS, ShoveHeaders.EXCEPTION_TRACE);
        assertThat(headers).doesNotContainKey(ShoveHeaders.EXCEPTION_MESSAGE);
    }

    private static Throwable deep(int depth) {
        return depth == 0 ? new IllegalArgumentException("bottom") : deep(depth - 1);
    }
}
