package dev.shove.conformance.faults;

/**
 * The broker side of the fault suite: restarts the broker (stops it, then starts it again on the same port and data), where
 * a backend's test has a broker of its own to do that with. Against a shared broker, {@link #none(String)}: the suite
 * then injects consumer kills only and says why in its summary.
 *
 * @since 0.1.0
 */
public interface FaultTarget {

    /** {@return whether {@link #restart()} restarts the broker} */
    boolean canRestart();

    /**
     * Stops the broker (SIGKILL, SIGTERM or the broker's own stop command, as the target's {@link #description()} says)
     * and starts it again on the same address and data, returning once it accepts connections again.
     *
     * @throws Exception when the broker cannot be restarted
     */
    void restart() throws Exception;

    /** {@return why the broker is not restarted, or what restarts it} */
    String description();

    /**
     * {@return a target that never restarts the broker}
     *
     * @param reason why not, for the summary (e.g. {@code "shared broker: no own-broker helper yet"})
     */
    static FaultTarget none(String reason) {
        return new FaultTarget() {
            @Override
            public boolean canRestart() {
                return false;
            }

            @Override
            public void restart() {
                throw new UnsupportedOperationException("this fault target cannot restart the broker: " + reason);
            }

            @Override
            public String description() {
                return "no broker restart: " + reason;
            }
        };
    }

    /**
     * {@return a target that restarts the broker with {@code restart}}
     *
     * @param description what is restarted, for the summary
     * @param restart kills the broker and starts it again
     */
    static FaultTarget restarting(String description, Restart restart) {
        return new FaultTarget() {
            @Override
            public boolean canRestart() {
                return true;
            }

            @Override
            public void restart() throws Exception {
                restart.run();
            }

            @Override
            public String description() {
                return description;
            }
        };
    }

    /** A broker restart: kill, then start again. */
    @FunctionalInterface
    interface Restart {
        /**
         * Restarts the broker.
         *
         * @throws Exception when it cannot
         */
        void run() throws Exception;
    }
}
