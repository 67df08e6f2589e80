package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

@DisplayName("SupervisorOutcome")
class SupervisorOutcomeTest {

    @ParameterizedTest(name = "errors={0} crashes={1} timedOut={2} -> exit {3}")
    @CsvSource({
        "0, 0, false, 0",
        "1, 0, false, 1",
        "3, 0, false, 1",
        "0, 1, false, 2",
        "3, 1, false, 2",
        "0, 0, true, 3",
        "3, 1, true, 3",
        "0, 5, true, 3",
        "7, 0, true, 3"
    })
    @DisplayName("exit code precedence: drain timeout 3 > internal crash 2 > consumer error 1 > clean 0")
    void exitCodePrecedence(int errors, int crashes, boolean timedOut, int exitCode) {
        SupervisorOutcome outcome = new SupervisorOutcome(errors, crashes, timedOut);

        assertThat(outcome.exitCode()).isEqualTo(exitCode);
        assertThat(outcome.isClean()).isEqualTo(exitCode == 0);
    }

    @Test
    @DisplayName("CLEAN is clean with exit code 0")
    void clean() {
        assertThat(SupervisorOutcome.CLEAN).isEqualTo(new SupervisorOutcome(0, 0, false));
        assertThat(SupervisorOutcome.CLEAN.exitCode()).isZero();
        assertThat(SupervisorOutcome.CLEAN.isClean()).isTrue();
    }

    @Test
    @DisplayName("plus adds the counts and is timed out if either is")
    void plus() {
        SupervisorOutcome a = new SupervisorOutcome(1, 0, false);
        SupervisorOutcome b = new SupervisorOutcome(2, 1, true);

        assertThat(a.plus(b)).isEqualTo(new SupervisorOutcome(3, 1, true));
        assertThat(b.plus(a)).isEqualTo(new SupervisorOutcome(3, 1, true));
        assertThat(a.plus(SupervisorOutcome.CLEAN)).isEqualTo(a);
        assertThat(SupervisorOutcome.CLEAN.plus(SupervisorOutcome.CLEAN)).isEqualTo(SupervisorOutcome.CLEAN);
    }
}
