package dev.shove.jdbc;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.ResultSetMetaData;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import javax.sql.DataSource;

/**
 * The names of shove-jdbc's three tables, and the calls that create and check them: the outbox ({@value
 * #DEFAULT_OUTBOX} by default), its keys ({@value #DEFAULT_OUTBOX_KEYS}: one row per ordering key, which serialises two
 * transactions writing one key so that the relay sees them in commit order) and the inbox ({@value #DEFAULT_INBOX}).
 *
 * <p>The schema is one SQL file per database beside this class ({@code dev/shove/jdbc/postgresql.sql}, {@code
 * mariadb.sql}, {@code h2.sql}), with the names as {@code ${outbox}}, {@code ${outbox_keys}} and {@code ${inbox}}
 * placeholders; {@link #createTables(DataSource)} applies the right one, or a migration tool applies it (see {@code
 * docs/concepts/outbox-and-inbox.md}). Immutable and thread-safe.
 *
 * <pre>{@code
 * ShoveTables tables = ShoveTables.ofDefaults();
 * tables.createTables(dataSource);
 * }</pre>
 *
 * @param outbox the outbox table's name
 * @param outboxKeys the outbox keys table's name
 * @param inbox the inbox table's name
 * @since 0.1.0
 */
public record ShoveTables(String outbox, String outboxKeys, String inbox) {
    /** The outbox table's default name. */
    public static final String DEFAULT_OUTBOX = "shove_outbox";
    /** The outbox keys table's default name. */
    public static final String DEFAULT_OUTBOX_KEYS = "shove_outbox_keys";
    /** The inbox table's default name. */
    public static final String DEFAULT_INBOX = "shove_inbox";

    /** A table name: an identifier, optionally qualified by a schema; never quoted, never anything else. */
    private static final Pattern NAME = Pattern.compile("([A-Za-z_][A-Za-z0-9_]*\\.)?[A-Za-z_][A-Za-z0-9_]{0,50}");

    static final List<String> OUTBOX_COLUMNS = List.of(
            "id",
            "topic",
            "msg_key",
            "message_id",
            "headers",
            "payload",
            "content_type",
            "created_at",
            "status",
            "attempts",
            "last_error",
            "failed_at");
    static final List<String> OUTBOX_KEYS_COLUMNS = List.of("topic", "msg_key", "writes");
    static final List<String> INBOX_COLUMNS = List.of("consumer_group", "message_id", "recorded_at");

    /**
     * Checks the names.
     *
     * @param outbox the outbox table's name
     * @param outboxKeys the outbox keys table's name
     * @param inbox the inbox table's name
     * @throws IllegalArgumentException when a name is not a plain SQL identifier (letters, digits, {@code _}),
     *     optionally {@code schema.}-qualified, or two names are equal
     */
    public ShoveTables {
        check("outbox", outbox);
        check("outboxKeys", outboxKeys);
        check("inbox", inbox);
        Set<String> distinct = new java.util.HashSet<>();
        for (String name : List.of(outbox, outboxKeys, inbox)) {
            distinct.add(name.toLowerCase(Locale.ROOT));
        }
        if (distinct.size() != 3) {
            throw new IllegalArgumentException("the outbox, outbox keys and inbox tables need three different names,"
                    + " not " + outbox + ", " + outboxKeys + ", " + inbox);
        }
    }

    /** {@return the default names: {@value #DEFAULT_OUTBOX}, {@value #DEFAULT_OUTBOX_KEYS}, {@value #DEFAULT_INBOX}} */
    public static ShoveTables ofDefaults() {
        return new ShoveTables(DEFAULT_OUTBOX, DEFAULT_OUTBOX_KEYS, DEFAULT_INBOX);
    }

    /**
     * {@return names derived from one prefix: {@code <prefix>_outbox}, {@code <prefix>_outbox_keys}, {@code
     * <prefix>_inbox}}
     *
     * @param prefix the common prefix, e.g. {@code billing} or {@code app.billing}
     */
    public static ShoveTables withPrefix(String prefix) {
        return new ShoveTables(prefix + "_outbox", prefix + "_outbox_keys", prefix + "_inbox");
    }

    private static void check(String what, String name) {
        Objects.requireNonNull(name, what);
        if (!NAME.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "table name " + what + " = '" + name
                            + "' is not a plain SQL identifier (letters, digits and _, at most 51, optionally schema-qualified)");
        }
    }

    /**
     * Creates the three tables and their indexes where they do not exist yet, with the schema file of the database
     * behind {@code dataSource}, then {@link #verify(Connection) checks} them. Idempotent.
     *
     * @param dataSource where to create them
     * @throws DatabaseException when a statement fails, or an existing table has the wrong shape
     */
    public void createTables(DataSource dataSource) {
        Objects.requireNonNull(dataSource, "dataSource");
        try (Connection connection = dataSource.getConnection()) {
            createTables(connection);
        } catch (SQLException e) {
            throw new DatabaseException("cannot connect to create the tables " + this + ": " + e.getMessage(), e);
        }
    }

    /**
     * Like {@link #createTables(DataSource)}, on a connection of the caller's; commits when the connection is not in
     * auto-commit mode (PostgreSQL and H2 create tables transactionally, MariaDB commits each at once).
     *
     * @param connection where to create them
     * @throws DatabaseException when a statement fails, or an existing table has the wrong shape
     */
    public void createTables(Connection connection) {
        Objects.requireNonNull(connection, "connection");
        String statement = "";
        try {
            Dialect dialect = Dialect.of(connection);
            try (Statement s = connection.createStatement()) {
                for (String sql : schemaStatements(dialect)) {
                    statement = sql;
                    s.execute(sql);
                }
            }
            if (!connection.getAutoCommit()) {
                connection.commit();
            }
        } catch (SQLException e) {
            throw new DatabaseException(
                    "cannot create the tables " + this + ": " + e.getMessage() + " (statement: " + statement + ")", e);
        }
        verify(connection);
    }

    /**
     * The statements of the schema file for the database behind {@code connection}, with this record's names in
     * place: what {@link #createTables(Connection)} runs, for a migration tool or a review.
     *
     * @param connection a connection to the database (only its metadata is read)
     * @return the statements, in order, without the trailing semicolons
     * @throws DatabaseException when the database is none that shove-jdbc supports
     */
    public List<String> schema(Connection connection) {
        try {
            return schemaStatements(Dialect.of(connection));
        } catch (SQLException e) {
            throw new DatabaseException("cannot read the database's product name: " + e.getMessage(), e);
        }
    }

    List<String> schemaStatements(Dialect dialect) {
        String text;
        try (InputStream in = ShoveTables.class.getResourceAsStream(dialect.schemaResource())) {
            if (in == null) {
                throw new IllegalStateException("the schema file dev/shove/jdbc/" + dialect.schemaResource()
                        + " is missing from the shove-jdbc jar");
            }
            text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read dev/shove/jdbc/" + dialect.schemaResource(), e);
        }
        Map<String, String> names = Map.of(
                "${outbox}", outbox,
                "${outbox_keys}", outboxKeys,
                "${inbox}", inbox,
                "${outbox_claim_index}", bareName(outbox) + "_claim",
                "${inbox_recorded_index}", bareName(inbox) + "_recorded");
        StringBuilder sql = new StringBuilder();
        for (String line : text.split("\n")) {
            if (!line.stripLeading().startsWith("--")) {
                sql.append(line).append('\n');
            }
        }
        String all = sql.toString();
        for (Map.Entry<String, String> name : names.entrySet()) {
            all = all.replace(name.getKey(), name.getValue());
        }
        List<String> statements = new ArrayList<>();
        for (String s : all.split(";")) {
            if (!s.isBlank()) {
                statements.add(s.strip());
            }
        }
        return statements;
    }

    private static String bareName(String table) {
        int dot = table.indexOf('.');
        return dot < 0 ? table : table.substring(dot + 1);
    }

    /**
     * Checks that the three tables exist with every column shove-jdbc reads and writes.
     *
     * @param connection a connection to the database; left as it was (a check that fails inside the caller's
     *     transaction aborts that transaction on PostgreSQL, so call it outside one)
     * @throws DatabaseException naming the table and what is missing, and how to create it
     */
    public void verify(Connection connection) {
        verifyTable(connection, outbox, OUTBOX_COLUMNS);
        verifyTable(connection, outboxKeys, OUTBOX_KEYS_COLUMNS);
        verifyTable(connection, inbox, INBOX_COLUMNS);
    }

    void verifyOutbox(Connection connection) {
        verifyTable(connection, outbox, OUTBOX_COLUMNS);
        verifyTable(connection, outboxKeys, OUTBOX_KEYS_COLUMNS);
    }

    void verifyInbox(Connection connection) {
        verifyTable(connection, inbox, INBOX_COLUMNS);
    }

    private void verifyTable(Connection connection, String table, List<String> expected) {
        Set<String> found = new TreeSet<>();
        try (Statement s = connection.createStatement();
                ResultSet rs = s.executeQuery("SELECT * FROM " + table + " WHERE 1 = 0")) {
            ResultSetMetaData md = rs.getMetaData();
            for (int i = 1; i <= md.getColumnCount(); i++) {
                found.add(md.getColumnName(i).toLowerCase(Locale.ROOT));
            }
        } catch (SQLException e) {
            throw new DatabaseException(
                    "table '" + table + "' cannot be read (" + e.getMessage() + "): create it with "
                            + "ShoveTables.createTables(dataSource) or apply dev/shove/jdbc/<database>.sql from the "
                            + "shove-jdbc jar with your migration tool",
                    e);
        }
        List<String> missing = expected.stream().filter(c -> !found.contains(c)).toList();
        if (!missing.isEmpty()) {
            throw new DatabaseException(
                    "table '" + table + "' has the wrong shape: it lacks the column(s) " + String.join(", ", missing)
                            + " (it has " + String.join(", ", found) + "); it may belong to something else: give "
                            + "shove-jdbc other table names (new ShoveTables(...)) or migrate it to "
                            + "dev/shove/jdbc/<database>.sql from the shove-jdbc jar",
                    null);
        }
    }
}
