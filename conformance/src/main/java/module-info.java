/**
 * shove's conformance kit: the contract tests every backend runs against its real broker. JUnit instantiates the
 * kit's nested contract classes and Jackson reads its test message, so the package is open to both.
 */
module dev.shove.conformance {
    requires transitive dev.shove;
    requires transitive org.junit.jupiter.api;
    requires org.junit.jupiter.params;
    requires org.assertj.core;
    requires awaitility;

    exports dev.shove.conformance;
    exports dev.shove.conformance.faults;

    opens dev.shove.conformance to
            org.junit.platform.commons,
            com.fasterxml.jackson.databind;
    opens dev.shove.conformance.faults to
            com.fasterxml.jackson.databind;
}
