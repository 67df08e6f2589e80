package dev.shove;

/**
 * What a consumer group does with its topic's dead letters ({@link ConsumerGroupConfig.Builder#deadLetters}). In every
 * mode a message that dies is first stored in the topic's dead-letter queue, where {@link Broker#deadLetters} and
 * {@code shove dlq} see it; the modes differ in who calls {@link MessageHandler#handleDead} and whether the dead letter
 * stays.
 *
 * @since 0.1.0
 */
public enum DeadLetterHandling {
    /**
     * The default: when a message of the group dies, {@code handleDead} (or {@code handleUnreadableDead}) runs once,
     * in the process that dead-lettered it, after the broker has stored the dead letter; the dead letter stays in the
     * queue, like a parking lot, until someone replays or purges it. A process that stops (or crashes) between
     * storing a dead letter and calling {@code handleDead} does not call it later; the dead letter is kept all the
     * same. A dead letter that was already in the queue (from before the group started, or written by another
     * service) is not handed to {@code handleDead}.
     */
    KEEP,

    /**
     * A consumer of the dead-letter queue hands every dead letter in it to {@code handleDead} and then removes it,
     * whatever the handler did: the queue drains as the group runs. At least once: a crash between the call and the
     * removal calls it again. An undecodable dead letter whose {@code handleUnreadableDead} is the default is dropped
     * (logged and counted in {@code shove.messages.discarded}).
     */
    REMOVE,

    /**
     * Nobody calls {@code handleDead}: the dead letters stay for a person, a script or another service ({@code shove
     * dlq}, {@link Broker#deadLetters}).
     */
    NONE
}
