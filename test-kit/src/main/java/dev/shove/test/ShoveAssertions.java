package dev.shove.test;

/**
 * Entry point of the kit's assertions, AssertJ-style without depending on AssertJ:
 *
 * <pre>{@code
 * import static dev.shove.test.ShoveAssertions.assertThat;
 *
 * assertThat(kit.journey(ORDERS, messageId)).wasRetried(2).wasDeadLettered("max-retries-exceeded");
 * }</pre>
 *
 * <p>It sits beside AssertJ's {@code assertThat} in the same test: Java picks this one for a {@link Journey}.
 *
 * @since 0.1.0
 */
public final class ShoveAssertions {
    private ShoveAssertions() {}

    /**
     * Assertions on one message's journey; a failure shows the whole journey.
     *
     * @param journey a journey from {@code ShoveKit.journey(...)}
     * @return the assertions, to chain
     */
    public static JourneyAssert assertThat(Journey<?> journey) {
        return new JourneyAssert(journey);
    }
}
