package dev.shove.cli;

import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Option;

/**
 * A topic as the command line describes it, the way the application declares it: its name, hold tiers, dead-letter
 * queue and shards. The payload is {@code byte[]} (the raw codec), so the CLI never needs the application's classes.
 */
final class TopicOptions {
    /** Marks {@code --dlq} given without a name: the default {@code {topic}-dlq}. */
    private static final String DEFAULT_DLQ = "";

    @Option(
            names = {"-t", "--topic"},
            required = true,
            paramLabel = "NAME",
            description = "The topic's name, as the application declares it.")
    String name = "";

    @Option(
            names = "--hold",
            paramLabel = "DURATION",
            converter = DurationConverter.class,
            description = {
                "A hold tier (retry delay) of the topic, repeatable, shortest first, as the application declares them:"
                        + " 500ms, 5s, 2m, 1h or ISO-8601 (PT5S). None: the implicit 1s tier."
            })
    List<Duration> holds = new ArrayList<>();

    @Option(
            names = "--dlq",
            arity = "0..1",
            paramLabel = "NAME",
            fallbackValue = DEFAULT_DLQ,
            description = {
                "The topic has a dead-letter queue: {topic}-dlq, or the NAME given. The dlq commands imply it."
            })
    @Nullable
    String dlq;

    @Option(
            names = "--shards",
            paramLabel = "N",
            description = {
                "The topic is sequenced (per-key order) over N shards ({topic}-seq-0 ... -seq-{N-1});"
                        + " as the application's routingShards (its default is 8)."
            })
    @Nullable
    Integer shards;

    @Option(
            names = "--broadcast",
            description = "The topic is a broadcast topic (no hold tiers, no dead-letter queue).")
    boolean broadcast;

    /** The topic, with a dead-letter queue when {@code requireDlq} even if {@code --dlq} was not given. */
    Topic<byte[]> build(boolean requireDlq) {
        return build(requireDlq, null);
    }

    /**
     * The topic; on a sequenced topic every message published through it gets {@code key} as its ordering key (a
     * publish without one is refused by the key function).
     */
    Topic<byte[]> build(boolean requireDlq, @Nullable String key) {
        try {
            Topic.Builder<byte[]> b = Topic.builder(name, byte[].class);
            for (Duration hold : holds) {
                b.holdQueue(hold);
            }
            if (dlq != null && !dlq.equals(DEFAULT_DLQ)) {
                b.dlq(dlq);
            } else if (dlq != null || requireDlq) {
                b.dlq();
            }
            if (shards != null) {
                String topic = name;
                b.sequenced(SequenceFailure.SKIP, payload -> {
                    if (key == null) {
                        // publish checks --key first; a dead letter reaches here only without a key header
                        throw new IllegalArgumentException("topic '" + topic
                                + "' is sequenced and the message has no ordering key (no shove-sequence-key"
                                + " header); the command line cannot derive one from the payload");
                    }
                    return key;
                });
                b.routingShards(shards);
            }
            if (broadcast) {
                b.broadcast();
            }
            return b.build();
        } catch (IllegalArgumentException | IllegalStateException e) {
            throw CliException.usage(e.getMessage() + " (fix the topic options; see --help)", e);
        }
    }

    /** Reads {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 1d}, and ISO-8601 durations. */
    static final class DurationConverter implements CommandLine.ITypeConverter<Duration> {
        private static final Pattern COMPACT = Pattern.compile("(\\d+)(ms|s|m|h|d)");

        @Override
        public Duration convert(String value) {
            String text = value.trim().toLowerCase(Locale.ROOT);
            Matcher m = COMPACT.matcher(text);
            if (m.matches()) {
                long amount = Long.parseLong(m.group(1));
                return switch (m.group(2)) {
                    case "ms" -> Duration.ofMillis(amount);
                    case "s" -> Duration.ofSeconds(amount);
                    case "m" -> Duration.ofMinutes(amount);
                    case "h" -> Duration.ofHours(amount);
                    default -> Duration.ofDays(amount);
                };
            }
            try {
                return Duration.parse(value.trim());
            } catch (DateTimeParseException e) {
                throw new CommandLine.TypeConversionException(
                        "'" + value + "' is not a duration: write 500ms, 5s, 2m, 1h, 1d or ISO-8601 such as PT5S");
            }
        }
    }
}
