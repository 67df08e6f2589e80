package dev.shove;

import java.util.List;
import java.util.Locale;

/**
 * The headers shove owns. They all start with {@value #PREFIX}; the prefix is reserved, so publishing a header that
 * starts with it (in any case) fails with an {@link IllegalArgumentException}, except {@value #MESSAGE_ID} spelled
 * exactly so, which gives the message an id of the caller's choosing (see {@link Publisher}). Every other header a
 * publisher sets survives every hop (hold tiers, dead-letter queue, retries).
 *
 * <table>
 *   <caption>Headers shove writes</caption>
 *   <tr><th>header</th><th>written</th><th>meaning</th></tr>
 *   <tr><td>{@value #MESSAGE_ID}</td><td>on publish</td><td>a unique id; kept by every copy</td></tr>
 *   <tr><td>{@value #RETRY_COUNT}</td><td>on retry copies</td><td>retries spent; absent means 0</td></tr>
 *   <tr><td>{@value #SEQUENCE_KEY}</td><td>on publish to a sequenced topic</td><td>the ordering key</td></tr>
 *   <tr><td>{@value #NOT_BEFORE}</td><td>on hold copies</td><td>epoch ms before which the copy must not be
 *       handled</td></tr>
 *   <tr><td>{@value #DEATH_REASON}</td><td>on dead letters</td><td>why it was dead-lettered</td></tr>
 *   <tr><td>{@value #ORIGINAL_QUEUE}</td><td>on dead letters</td><td>where it was consumed from</td></tr>
 *   <tr><td>{@value #DEATH_COUNT}</td><td>on dead letters</td><td>times dead-lettered</td></tr>
 *   <tr><td>{@value #EXCEPTION_CLASS}</td><td>on dead letters of a handler that threw</td><td>the exception's
 *       class</td></tr>
 *   <tr><td>{@value #EXCEPTION_MESSAGE}</td><td>on dead letters of a handler that threw</td><td>its message,
 *       capped and on one line</td></tr>
 *   <tr><td>{@value #EXCEPTION_TRACE}</td><td>on dead letters of a handler that threw</td><td>its stack trace and
 *       causes, capped and on one line</td></tr>
 *   <tr><td>{@value #SCHEMA_VERSION}</td><td>on publish by a versioned codec ({@link SchemaVersions})</td><td>the
 *       schema version of the payload; absent means 1</td></tr>
 *   <tr><td>{@value #REPLAY_COUNT}</td><td>on copies replayed from the dead-letter queue</td><td>times replayed</td></tr>
 * </table>
 *
 * @since 0.1.0
 */
public final class ShoveHeaders {
    /** The reserved prefix of every shove header. */
    public static final String PREFIX = "shove-";

    /** A unique id written on publish (or given by the caller) and kept by every copy. */
    public static final String MESSAGE_ID = "shove-message-id";
    /** Retries spent, written on retry copies; absent means 0. */
    public static final String RETRY_COUNT = "shove-retry-count";
    /** The ordering key, written on publish to a sequenced topic. */
    public static final String SEQUENCE_KEY = "shove-sequence-key";
    /** Epoch milliseconds before which a hold copy must not be handled. */
    public static final String NOT_BEFORE = "shove-not-before";
    /** Why a dead letter was dead-lettered. */
    public static final String DEATH_REASON = "shove-death-reason";
    /** Where a dead letter was consumed from. */
    public static final String ORIGINAL_QUEUE = "shove-original-queue";
    /** How many times a message was dead-lettered. */
    public static final String DEATH_COUNT = "shove-death-count";
    /** The class of the exception a handler threw, on its dead letter. */
    public static final String EXCEPTION_CLASS = "shove-exception-class";
    /** The message of the exception a handler threw, capped and on one line, on its dead letter. */
    public static final String EXCEPTION_MESSAGE = "shove-exception-message";
    /** The stack trace and causes of the exception a handler threw, capped and on one line, on its dead letter. */
    public static final String EXCEPTION_TRACE = "shove-exception-trace";
    /** How many times a copy was replayed from the dead-letter queue. */
    public static final String REPLAY_COUNT = "shove-replay-count";

    /** The schema version of the payload, written on publish by a versioned codec; absent means 1. */
    public static final String SCHEMA_VERSION = "shove-schema-version";

    /** Every header shove writes. */
    public static final List<String> ALL = List.of(
            MESSAGE_ID,
            RETRY_COUNT,
            SEQUENCE_KEY,
            NOT_BEFORE,
            DEATH_REASON,
            ORIGINAL_QUEUE,
            DEATH_COUNT,
            EXCEPTION_CLASS,
            EXCEPTION_MESSAGE,
            EXCEPTION_TRACE,
            REPLAY_COUNT,
            SCHEMA_VERSION);

    private ShoveHeaders() {}

    /**
     * {@return whether a header name falls under the reserved prefix, compared case-insensitively}
     *
     * @param name a header name
     */
    public static boolean isReserved(String name) {
        return name.length() >= PREFIX.length()
                && name.substring(0, PREFIX.length()).toLowerCase(Locale.ROOT).equals(PREFIX);
    }
}
