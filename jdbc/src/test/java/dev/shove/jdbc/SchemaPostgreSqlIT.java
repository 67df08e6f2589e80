package dev.shove.jdbc;

class SchemaPostgreSqlIT extends SchemaContract {
    @Override
    TestDatabase database() {
        return TestDatabase.POSTGRESQL;
    }
}
