package dev.shove.jdbc;

class SchemaMariaDbIT extends SchemaContract {
    @Override
    TestDatabase database() {
        return TestDatabase.MARIADB;
    }
}
