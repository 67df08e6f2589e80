package dev.shove.jdbc;

import dev.shove.conformance.BrokerAvailability;

class CrashPostgreSqlIT extends CrashContract {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }

    @Override
    String url() {
        return "jdbc:postgresql://" + BrokerAvailability.env("SHOVE_POSTGRESQL_HOST", "127.0.0.1") + ":"
                + BrokerAvailability.env("SHOVE_POSTGRESQL_PORT", "5432") + "/" + TestDatabase.DATABASE;
    }

    @Override
    String user() {
        return BrokerAvailability.env("SHOVE_POSTGRESQL_USER", "postgres");
    }
}
