package dev.shove.jdbc;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class SchemaH2Test extends SchemaContract {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }

    @Test
    @DisplayName("a table name that is not a plain identifier is refused before any SQL is built with it")
    void tableNamesAreIdentifiers() {
        assertThatThrownBy(() -> new ShoveTables("outbox; DROP TABLE x", "k", "i"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("not a plain SQL identifier");
        assertThatThrownBy(() -> new ShoveTables("a", "a", "i"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("three different names");
    }
}
