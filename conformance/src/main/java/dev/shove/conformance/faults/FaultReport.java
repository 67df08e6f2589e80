package dev.shove.conformance.faults;

import java.time.LocalDate;
import java.time.ZoneOffset;
import java.util.Locale;

/**
 * The figures of one run of the {@link FaultSuite}.
 *
 * @param backend the backend's name, e.g. {@code kafka}
 * @param messages how many messages were published
 * @param kills consumer processes killed with SIGKILL
 * @param killsMidHandler kills while the killed consumer had a {@code MessageHandler} call running
 * @param killsMidBatch kills while the killed consumer had a batch handler call running
 * @param killsMidHold kills while at least one retry waited in its hold tier
 * @param restarts broker restarts (stop and start)
 * @param lost messages that ended neither acknowledged nor dead-lettered (the invariant wants 0)
 * @param ackDeadLettered messages meant to be acknowledged that were found in the dead-letter queue (wants 0)
 * @param duplicates handler calls beyond the ones each message needs (one, two for a retry)
 * @param deadLetterDuplicates dead letters beyond one per rejected message
 * @param bound the most duplicates the faults can explain: {@code 2 x (kills + restarts x consumers) x window}
 * @param seconds wall time of the run, publishing included
 * @param seed the seed that reproduces the decisions and the fault schedule
 * @param restartNote what restarted the broker, or why nothing did
 * @since 0.1.0
 */
public record FaultReport(
        String backend,
        int messages,
        int kills,
        int killsMidHandler,
        int killsMidBatch,
        int killsMidHold,
        int restarts,
        int lost,
        int ackDeadLettered,
        long duplicates,
        long deadLetterDuplicates,
        long bound,
        double seconds,
        long seed,
        String restartNote) {

    /** {@return the one-line summary the suite prints} */
    public String summary() {
        return String.format(
                Locale.ROOT,
                "fault suite %s: %d messages, %d kills (%d mid-handler, %d mid-batch, %d mid-hold), %d broker"
                        + " restarts (%s), %d lost, %d acknowledged-but-dead-lettered, %d duplicates (bound %d),"
                        + " %d dead-letter duplicates, %.1f s, seed %d",
                backend,
                messages,
                kills,
                killsMidHandler,
                killsMidBatch,
                killsMidHold,
                restarts,
                restartNote,
                lost,
                ackDeadLettered,
                duplicates,
                bound,
                deadLetterDuplicates,
                seconds,
                seed);
    }

    /**
     * {@return a row of the table in docs/reliability.md: date, backend, messages, kills, restarts, lost, duplicates,
     * seconds}
     */
    public String markdownRow() {
        return String.format(
                Locale.ROOT,
                "| %s | %s | %,d | %d | %d | %d | %,d (bound %,d) | %.0f |",
                LocalDate.now(ZoneOffset.UTC),
                backend,
                messages,
                kills,
                restarts,
                lost,
                duplicates,
                bound,
                seconds);
    }
}
