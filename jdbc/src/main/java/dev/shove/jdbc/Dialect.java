package dev.shove.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

/** The databases shove-jdbc speaks, each with its schema file and the few statements that differ. */
enum Dialect {
    POSTGRESQL("postgresql.sql"),
    MARIADB("mariadb.sql"),
    H2("h2.sql");

    private final String schemaResource;

    Dialect(String schemaResource) {
        this.schemaResource = schemaResource;
    }

    /** {@return the schema file's name, beside this class} */
    String schemaResource() {
        return schemaResource;
    }

    /**
     * {@return the dialect of the database behind {@code connection}}
     *
     * @throws DatabaseException when it is none of PostgreSQL, MariaDB/MySQL, H2
     */
    static Dialect of(Connection connection) throws SQLException {
        String product = connection.getMetaData().getDatabaseProductName();
        String p = product == null ? "" : product.toLowerCase(Locale.ROOT);
        if (p.contains("postgresql")) {
            return POSTGRESQL;
        }
        if (p.contains("mariadb") || p.contains("mysql")) {
            return MARIADB;
        }
        if (p.equals("h2")) {
            return H2;
        }
        throw new DatabaseException(
                "shove-jdbc supports PostgreSQL, MariaDB/MySQL and H2, not '" + product
                        + "'; use one of those databases for the outbox and inbox tables",
                null);
    }

    /**
     * The statement that takes (or creates) a key's row in the keys table, so that two transactions writing one key
     * are serialised: the second waits for the first to commit, and its outbox row gets the higher id. Parameters:
     * topic, key.
     */
    String lockKey(String keysTable) {
        return switch (this) {
            case POSTGRESQL ->
                "INSERT INTO " + keysTable + " AS k (topic, msg_key, writes) VALUES (?, ?, 1)"
                        + " ON CONFLICT (topic, msg_key) DO UPDATE SET writes = k.writes + 1";
            case MARIADB ->
                "INSERT INTO " + keysTable + " (topic, msg_key, writes) VALUES (?, ?, 1)"
                        + " ON DUPLICATE KEY UPDATE writes = writes + 1";
            // H2: lockKeyH2 below; a statement error there does not abort the transaction, so it can try again
            case H2 -> "UPDATE " + keysTable + " SET writes = writes + 1 WHERE topic = ? AND msg_key = ?";
        };
    }

    /** {@return the row-locking suffix of a claim: rows another relay holds are passed over, not waited for} */
    String skipLocked() {
        return " FOR UPDATE SKIP LOCKED"; // PostgreSQL 9.5+, MariaDB 10.6+, MySQL 8.0+, H2 2.x
    }
}
