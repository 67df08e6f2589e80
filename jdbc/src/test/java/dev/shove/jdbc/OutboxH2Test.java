package dev.shove.jdbc;

class OutboxH2Test extends OutboxContract {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
