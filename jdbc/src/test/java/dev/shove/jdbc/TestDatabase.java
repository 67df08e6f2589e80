package dev.shove.jdbc;

import dev.shove.conformance.BrokerAvailability;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.UUID;
import javax.sql.DataSource;
import org.junit.jupiter.api.Assumptions;

/**
 * The databases the tests run on: H2 in memory (unit tests), and PostgreSQL and MariaDB on loopback (integration
 * tests; a missing server skips them, or fails them with SHOVE_IT_REQUIRED=true). Each test makes tables of its own
 * ({@link #uniqueTables()}), so runs do not collide; the servers' test database ({@value #DATABASE}) is created when
 * missing.
 */
enum TestDatabase {
    H2,
    POSTGRESQL,
    MARIADB;

    static final String DATABASE = "shove_test";

    /** {@return a data source on this database, creating the test database when missing} */
    DataSource dataSource() {
        return switch (this) {
            case H2 ->
                new UrlDataSource(
                        "jdbc:h2:mem:" + UUID.randomUUID() + ";DB_CLOSE_DELAY=-1;LOCK_TIMEOUT=10000", "sa", "");
            case POSTGRESQL -> {
                String host = BrokerAvailability.env("SHOVE_POSTGRESQL_HOST", "127.0.0.1");
                int port = Integer.parseInt(BrokerAvailability.env("SHOVE_POSTGRESQL_PORT", "5432"));
                require("PostgreSQL", host, port);
                String user = BrokerAvailability.env("SHOVE_POSTGRESQL_USER", "postgres");
                String base = "jdbc:postgresql://" + host + ":" + port + "/";
                try (Connection c = DriverManager.getConnection(base + "postgres", user, "");
                        Statement s = c.createStatement();
                        ResultSet rs = s.executeQuery("SELECT 1 FROM pg_database WHERE datname = '" + DATABASE + "'")) {
                    if (!rs.next()) {
                        s.execute("CREATE DATABASE " + DATABASE);
                    }
                } catch (SQLException e) {
                    if (!"42P04".equals(e.getSQLState())) { // created meanwhile by another run
                        throw new IllegalStateException("cannot create database " + DATABASE + " on PostgreSQL", e);
                    }
                }
                yield new UrlDataSource(base + DATABASE, user, "");
            }
            case MARIADB -> {
                String host = BrokerAvailability.env("SHOVE_MARIADB_HOST", "127.0.0.1");
                int port = Integer.parseInt(BrokerAvailability.env("SHOVE_MARIADB_PORT", "3306"));
                require("MariaDB", host, port);
                String user = BrokerAvailability.env("SHOVE_MARIADB_USER", "root");
                String base = "jdbc:mariadb://" + host + ":" + port + "/";
                try (Connection c = DriverManager.getConnection(base, user, "");
                        Statement s = c.createStatement()) {
                    s.execute("CREATE DATABASE IF NOT EXISTS " + DATABASE);
                } catch (SQLException e) {
                    throw new IllegalStateException("cannot create database " + DATABASE + " on MariaDB", e);
                }
                yield new UrlDataSource(base + DATABASE, user, "");
            }
        };
    }

    /** {@return table names no other test uses} */
    static ShoveTables uniqueTables() {
        return ShoveTables.withPrefix(
                "t" + UUID.randomUUID().toString().replace("-", "").substring(0, 12));
    }

    private static void require(String server, String host, int port) {
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), 2_000);
            return;
        } catch (IOException e) {
            // not there: fail or skip below
        }
        String message = "%s is not reachable on %s:%d; start it (the integration tests need a local %s server, see"
                        .formatted(server, host, port, server)
                + " docs/concepts/outbox-and-inbox.md) or point the test at one with SHOVE_"
                + server.toUpperCase(java.util.Locale.ROOT) + "_HOST/_PORT";
        if (BrokerAvailability.required()) {
            throw new AssertionError(message + " [" + BrokerAvailability.REQUIRED_ENV + "=true]");
        }
        Assumptions.abort(message);
    }
}
