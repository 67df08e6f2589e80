package dev.shove.jdbc;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.sql.Statement;
import javax.sql.DataSource;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The schema's contract, run on each database by a subclass. */
abstract class SchemaContract {
    abstract TestDatabase database();

    DataSource dataSource;
    ShoveTables tables;

    @BeforeEach
    void setUp() {
        dataSource = database().dataSource();
        tables = TestDatabase.uniqueTables();
    }

    @Test
    @DisplayName("createTables creates the three tables, and a second call changes nothing")
    void createTablesIsIdempotent() throws Exception {
        tables.createTables(dataSource);
        tables.createTables(dataSource);
        try (Connection c = dataSource.getConnection()) {
            tables.verify(c);
            assertThat(Outbox.of(tables).pending(c)).isZero();
        }
    }

    @Test
    @DisplayName("a missing table is an error that names it and says how to create it")
    void missingTableIsNamed() throws Exception {
        try (Connection c = dataSource.getConnection()) {
            assertThatThrownBy(() -> tables.verify(c))
                    .isInstanceOf(DatabaseException.class)
                    .hasMessageContaining("table '" + tables.outbox() + "'")
                    .hasMessageContaining("createTables");
        }
    }

    @Test
    @DisplayName("a table of that name with other columns is an error naming the columns it lacks")
    void wrongShapeNamesMissingColumns() throws Exception {
        tables.createTables(dataSource);
        try (Connection c = dataSource.getConnection();
                Statement s = c.createStatement()) {
            s.execute("DROP TABLE " + tables.inbox());
            s.execute("CREATE TABLE " + tables.inbox() + " (consumer_group VARCHAR(20), other INTEGER)");
            if (!c.getAutoCommit()) {
                c.commit();
            }
            assertThatThrownBy(() -> tables.verify(c))
                    .isInstanceOf(DatabaseException.class)
                    .hasMessageContaining("table '" + tables.inbox() + "' has the wrong shape")
                    .hasMessageContaining("message_id, recorded_at");
        }
    }

    @Test
    @DisplayName("the relay refuses to start on a missing outbox table, naming it")
    void relayChecksTables() {
        OutboxRelay relay = OutboxRelay.builder(
                        dataSource, (topic, message) -> java.util.concurrent.CompletableFuture.completedFuture(null))
                .tables(tables)
                .topics(Fixtures.ORDERS)
                .build();
        assertThatThrownBy(relay::start).isInstanceOf(DatabaseException.class).hasMessageContaining(tables.outbox());
        relay.close();
    }
}
