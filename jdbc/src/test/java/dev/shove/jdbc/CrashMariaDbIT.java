package dev.shove.jdbc;

import dev.shove.conformance.BrokerAvailability;

class CrashMariaDbIT extends CrashContract {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }

    @Override
    String url() {
        return "jdbc:mariadb://" + BrokerAvailability.env("SHOVE_MARIADB_HOST", "127.0.0.1") + ":"
                + BrokerAvailability.env("SHOVE_MARIADB_PORT", "3306") + "/" + TestDatabase.DATABASE;
    }

    @Override
    String user() {
        return BrokerAvailability.env("SHOVE_MARIADB_USER", "root");
    }
}
