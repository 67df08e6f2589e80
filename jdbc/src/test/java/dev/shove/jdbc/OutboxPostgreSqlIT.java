package dev.shove.jdbc;

class OutboxPostgreSqlIT extends OutboxContract {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
