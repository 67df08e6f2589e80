package dev.shove.jdbc;

class InboxMariaDbIT extends InboxContract {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
