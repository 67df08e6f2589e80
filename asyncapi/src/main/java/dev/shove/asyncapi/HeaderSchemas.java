package dev.shove.asyncapi;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.ShoveHeaders;
import java.util.List;
import java.util.Map;

/**
 * The headers schemas of shove's messages: every {@code shove-} header with what it means, when it is written and the
 * form of its value (as {@code docs/concepts/headers.md} describes them), and every other header as the publisher's
 * own. Two schemas: one for the messages of a topic, its shards and its hold tiers, and one for dead letters, which
 * always carry the headers saying why they died.
 */
final class HeaderSchemas {
    /** The name of the headers schema of a topic's messages under {@code components/schemas}. */
    static final String MESSAGE_HEADERS = "shove-headers";

    /** The name of the headers schema of dead letters under {@code components/schemas}. */
    static final String DEAD_LETTER_HEADERS = "shove-dead-letter-headers";

    private static final JsonNodeFactory JSON = JsonNodeFactory.instance;
    private static final String COUNT = "^[0-9]+$";

    /** The description of a header core writes that the table below does not know yet. */
    static final String UNDESCRIBED = "a header shove writes: ";

    /** Where a header is written: on the topic's messages (and hold copies), on dead letters, or on both. */
    private enum On {
        MESSAGES,
        DEAD_LETTERS,
        BOTH
    }

    /** One header: its meaning, its value's pattern and format (empty for none), and where it is written. */
    private record Header(String description, String pattern, String format, On on) {}

    private static final Map<String, Header> HEADERS = Map.ofEntries(
            Map.entry(
                    ShoveHeaders.MESSAGE_ID,
                    new Header(
                            "The message's id, a random UUID written by shove's publisher; every hold copy, dead"
                                    + " letter and replayed copy keeps it.",
                            "",
                            "uuid",
                            On.BOTH)),
            Map.entry(
                    ShoveHeaders.RETRY_COUNT,
                    new Header(
                            "Retries spent, a decimal count: written on hold copies (one more than before for a"
                                    + " retry, unchanged for a defer) and on dead letters (the count at death)."
                                    + " Absent means 0.",
                            COUNT,
                            "",
                            On.BOTH)),
            Map.entry(
                    ShoveHeaders.SEQUENCE_KEY,
                    new Header(
                            "The ordering key of a message of a sequenced topic, from the topic's key function;"
                                    + " messages of one key are handled strictly in publish order.",
                            "",
                            "",
                            On.BOTH)),
            Map.entry(
                    ShoveHeaders.NOT_BEFORE,
                    new Header(
                            "On hold copies: the time, in epoch milliseconds, before which the copy must not be"
                                    + " handled; a copy delivered earlier is held again for the rest. Removed from"
                                    + " dead letters.",
                            COUNT,
                            "",
                            On.MESSAGES)),
            Map.entry(
                    ShoveHeaders.REPLAY_COUNT,
                    new Header(
                            "On copies replayed from the dead-letter queue (and their later dead letters): how"
                                    + " many times the message was replayed, a decimal count.",
                            COUNT,
                            "",
                            On.BOTH)),
            Map.entry(
                    ShoveHeaders.SCHEMA_VERSION,
                    new Header(
                            "Written by the publisher when the topic's codec is versioned: the payload's schema"
                                    + " version, a decimal number; absent means 1. Consumers upcast older versions"
                                    + " and refuse newer ones.",
                            COUNT,
                            "",
                            On.BOTH)),
            Map.entry(
                    ShoveHeaders.DEATH_REASON,
                    new Header(
                            "Why the message was dead-lettered: rejected, rejected: <reason>,"
                                    + " max-retries-exceeded, decode-failed: <detail>, oversize: <detail> or"
                                    + " sequence-poisoned.",
                            "",
                            "",
                            On.DEAD_LETTERS)),
            Map.entry(
                    ShoveHeaders.ORIGINAL_QUEUE,
                    new Header(
                            "The queue the message was consumed from when it died: the topic's main queue, or a"
                                    + " shard.",
                            "",
                            "",
                            On.DEAD_LETTERS)),
            Map.entry(
                    ShoveHeaders.DEATH_COUNT,
                    new Header(
                            "How many times the message has been dead-lettered, a decimal count: the previous"
                                    + " count plus one.",
                            COUNT,
                            "",
                            On.DEAD_LETTERS)),
            Map.entry(
                    ShoveHeaders.EXCEPTION_CLASS,
                    new Header(
                            "On dead letters of a handler that threw (its last run): the exception's class" + " name.",
                            "",
                            "",
                            On.DEAD_LETTERS)),
            Map.entry(
                    ShoveHeaders.EXCEPTION_MESSAGE,
                    new Header(
                            "Likewise, when the exception has a message: the message on one line, at most"
                                    + " 1,024 characters.",
                            "",
                            "",
                            On.DEAD_LETTERS)),
            Map.entry(
                    ShoveHeaders.EXCEPTION_TRACE,
                    new Header(
                            "Likewise: the exception and its causes, each with its top frames, on one line"
                                    + " (frames separated by ' | '), at most 4,096 characters.",
                            "",
                            "",
                            On.DEAD_LETTERS)));

    /** The headers a dead letter always carries. */
    private static final List<String> DEAD_LETTER_REQUIRED =
            List.of(ShoveHeaders.DEATH_REASON, ShoveHeaders.ORIGINAL_QUEUE, ShoveHeaders.DEATH_COUNT);

    private HeaderSchemas() {}

    /** The headers schema of a topic's messages. */
    static ObjectNode messageHeaders() {
        return schema(
                false,
                "Message headers, all string values. shove's own start with 'shove-' (reserved: publishing one is"
                        + " refused); shove reads another producer's values leniently (an unreadable count is"
                        + " absent, one out of range is clamped).");
    }

    /** The headers schema of dead letters. */
    static ObjectNode deadLetterHeaders() {
        ObjectNode schema = schema(
                true,
                "Dead-letter headers, all string values: the message's own headers, and shove's saying why it"
                        + " died.");
        var required = schema.putArray("required");
        DEAD_LETTER_REQUIRED.forEach(required::add);
        return schema;
    }

    private static ObjectNode schema(boolean deadLetter, String description) {
        ObjectNode schema = JSON.objectNode();
        schema.put("type", "object");
        schema.put("description", description);
        ObjectNode properties = schema.putObject("properties");
        for (String name : ShoveHeaders.ALL) {
            Header h = HEADERS.get(name);
            if (h == null) {
                // a header core added since this table was written: described by its name only
                properties.putObject(name).put("type", "string").put("description", UNDESCRIBED + name);
                continue;
            }
            if (h.on() == (deadLetter ? On.MESSAGES : On.DEAD_LETTERS)) {
                continue;
            }
            ObjectNode p = properties.putObject(name);
            p.put("type", "string");
            p.put("description", h.description());
            if (!h.pattern().isEmpty()) {
                p.put("pattern", h.pattern());
            }
            if (!h.format().isEmpty()) {
                p.put("format", h.format());
            }
        }
        ObjectNode other = schema.putObject("additionalProperties");
        other.put("type", "string");
        other.put(
                "description",
                "Any other header is the publisher's own: shove carries it unchanged across every hop (hold"
                        + " tiers, retries, the dead-letter queue, replays). A backend may add shove-<backend>-"
                        + " headers of its own; see its page.");
        return schema;
    }
}
