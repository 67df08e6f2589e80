/**
 * shove's JDBC outbox and inbox. Its API takes {@code java.sql} and {@code javax.sql} types, so it requires {@code
 * java.sql} transitively; the application brings the driver and the pool.
 */
module dev.shove.jdbc {
    requires transitive dev.shove;
    requires transitive java.sql;

    exports dev.shove.jdbc;
}
