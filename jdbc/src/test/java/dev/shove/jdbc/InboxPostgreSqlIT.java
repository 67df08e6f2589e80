package dev.shove.jdbc;

class InboxPostgreSqlIT extends InboxContract {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
