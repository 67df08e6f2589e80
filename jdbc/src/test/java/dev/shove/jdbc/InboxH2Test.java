package dev.shove.jdbc;

class InboxH2Test extends InboxContract {
    @Override
    TestDatabase database() {
        return TestDatabase.H2;
    }
}
