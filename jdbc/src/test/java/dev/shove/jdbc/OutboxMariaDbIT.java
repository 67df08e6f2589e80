package dev.shove.jdbc;

class OutboxMariaDbIT extends OutboxContract {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
