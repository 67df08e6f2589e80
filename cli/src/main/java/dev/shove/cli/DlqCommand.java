package dev.shove.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Broker;
import dev.shove.DeadLetter;
import dev.shove.DeadLetterException;
import dev.shove.DeadLetterOptions;
import dev.shove.DeadLetterQueue;
import dev.shove.DeadLetterReport;
import dev.shove.DeadMessageMetadata;
import dev.shove.ShoveException;
import dev.shove.Topic;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalLong;
import java.util.concurrent.Callable;
import java.util.function.Function;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code shove dlq count|list|replay|purge}: a topic's dead letters, through {@link DeadLetterQueue}. */
@Command(
        name = "dlq",
        mixinStandardHelpOptions = true,
        description = {
            "Count, list, replay or purge a topic's dead letters. Replay publishes each chosen dead letter back to"
                    + " the topic and removes it only once the broker took the copy (at least once, never lost).",
            "Stop the topic's dead-letter consumer first (or register it with noDeadLetterConsumer()): it would"
                    + " otherwise handle letters meanwhile. See docs/concepts/dead-letters.md."
        },
        synopsisSubcommandLabel = "(count | list | replay | purge)")
final class DlqCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        throw CliException.usage("name a subcommand: count, list, replay or purge");
    }

    /** The dead-letter queue the options name, and the broker it is on. */
    static final class Target {
        @Mixin
        TopicOptions topic = new TopicOptions();

        @Mixin
        BrokerOption broker = new BrokerOption();

        @Option(
                names = {"-g", "--group"},
                paramLabel = "GROUP",
                description = "The consumer group whose view of the dead letters to use (its groupName; on Kafka,"
                        + " NATS and Redis each group has its own position). Default: the topic's default group.")
        @Nullable
        String group;

        /** Runs {@code action} on the queue, then gives the broker back. */
        <R> R with(ShoveCli.Session session, Function<DeadLetterQueue<byte[]>, R> action) {
            Topic<byte[]> built = topic.build(true);
            Broker<?> connected = broker.connect(session);
            try {
                DeadLetterQueue<byte[]> dlq;
                try {
                    dlq = group == null ? connected.deadLetters(built) : connected.deadLetters(built, group);
                } catch (IllegalArgumentException e) {
                    throw CliException.usage("topic '" + built.name() + "': " + e.getMessage(), e);
                }
                return action.apply(dlq);
            } finally {
                session.connector().release(connected);
            }
        }
    }

    /** {@code shove dlq count}. */
    @Command(
            name = "count",
            mixinStandardHelpOptions = true,
            description = {
                "Print how many dead letters wait in the topic's dead-letter queue.",
                "Exit status 1 when the broker cannot count them (use 'dlq list')."
            })
    static final class Count implements Callable<Integer> {
        private final ShoveCli.Session session;

        @Mixin
        Target target = new Target();

        Count(ShoveCli.Session session) {
            this.session = session;
        }

        @Override
        public Integer call() {
            return target.with(session, dlq -> {
                OptionalLong count = dlq.count();
                if (count.isEmpty()) {
                    throw CliException.failure(
                            "the broker cannot count the dead letters in '" + dlq.name()
                                    + "'; list them with 'shove dlq list'",
                            null);
                }
                session.out().println(count.getAsLong());
                return ShoveCli.OK;
            });
        }
    }

    /** {@code shove dlq list}. */
    @Command(
            name = "list",
            mixinStandardHelpOptions = true,
            description = {
                "Print the oldest dead letters, leaving them in the queue: id, reason, death and replay counts,"
                        + " the queue it died in, the exception, the headers and the payload.",
                "On RabbitMQ and SQS, reading takes the letters for the moment and gives them back (they come back"
                        + " marked redelivered); elsewhere it leaves them untouched."
            })
    static final class ListLetters implements Callable<Integer> {
        private final ShoveCli.Session session;

        @Mixin
        Target target = new Target();

        @Option(
                names = {"-n", "--limit"},
                paramLabel = "N",
                defaultValue = "20",
                description = "How many dead letters to print at most (default: ${DEFAULT-VALUE}).")
        int limit = 20;

        @Option(
                names = "--json",
                description = "One JSON object a line (payload as text when it is UTF-8, else payloadBase64).")
        boolean json;

        ListLetters(ShoveCli.Session session) {
            this.session = session;
        }

        @Override
        public Integer call() {
            if (limit < 1) {
                throw CliException.usage("--limit must be at least 1, was " + limit);
            }
            return target.with(session, dlq -> {
                List<DeadLetter<byte[]>> letters = read(dlq);
                for (DeadLetter<byte[]> letter : letters) {
                    if (json) {
                        session.out().println(Json.line(letter));
                    } else {
                        print(letter);
                    }
                }
                if (!json) {
                    session.out().println(letters.size() + " dead letter(s) shown from '" + dlq.name() + "'");
                }
                return ShoveCli.OK;
            });
        }

        private List<DeadLetter<byte[]>> read(DeadLetterQueue<byte[]> dlq) {
            try {
                return dlq.browse(limit);
            } catch (ShoveException e) {
                throw CliException.failure(
                        "cannot read the dead letters of '" + dlq.name() + "': " + e.getMessage(), e);
            }
        }

        private void print(DeadLetter<byte[]> letter) {
            DeadMessageMetadata meta = letter.metadata();
            var out = session.out();
            out.println(letter.id());
            out.println("  reason:    " + meta.reason());
            out.println("  queue:     " + meta.originalQueue() + "  deaths: " + meta.deathCount() + "  replays: "
                    + letter.replayCount() + "  retries: " + meta.message().retryCount());
            meta.exceptionClass()
                    .ifPresent(c -> out.println("  exception: " + c
                            + meta.exceptionMessage().map(m -> ": " + m).orElse("")));
            meta.message().headers().forEach((k, v) -> out.println("  header:    " + k + "=" + v));
            out.println("  payload:   "
                    + Json.text(letter.payload())
                            .orElse("(" + letter.payload().length + " bytes, not UTF-8) "
                                    + Base64.getEncoder().encodeToString(letter.payload())));
        }
    }

    /** What a replay or purge chooses: every option given must match (none given: every dead letter). */
    static final class Filter {
        @Option(
                names = "--reason",
                paramLabel = "TEXT",
                description = "Only dead letters whose reason contains TEXT (e.g. max-retries-exceeded, rejected).")
        @Nullable
        String reason;

        @Option(
                names = "--exception",
                paramLabel = "TEXT",
                description = "Only dead letters whose exception class contains TEXT (e.g. TimeoutException).")
        @Nullable
        String exception;

        @Option(
                names = "--id",
                paramLabel = "ID",
                description = "Only the dead letter with this message id; repeatable.")
        List<String> ids = new ArrayList<>();

        @Option(
                names = "--where-header",
                paramLabel = "NAME=VALUE",
                description = "Only dead letters with this header value; repeatable.")
        Map<String, String> headers = new LinkedHashMap<>();

        @Option(
                names = "--contains",
                paramLabel = "TEXT",
                description = "Only dead letters whose payload contains TEXT (as UTF-8).")
        @Nullable
        String contains;

        /** {@return whether any option narrows the choice (else every dead letter is chosen)} */
        boolean chooses() {
            return reason != null || exception != null || !ids.isEmpty() || !headers.isEmpty() || contains != null;
        }

        Predicate<DeadLetter<byte[]>> predicate() {
            Predicate<DeadLetter<byte[]>> p = letter -> true;
            String r = reason;
            if (r != null) {
                p = p.and(letter -> letter.metadata().reason().contains(r));
            }
            String e = exception;
            if (e != null) {
                p = p.and(
                        letter -> letter.metadata().exceptionClass().orElse("").contains(e));
            }
            if (!ids.isEmpty()) {
                List<String> chosen = List.copyOf(ids);
                p = p.and(letter -> chosen.contains(letter.id()));
            }
            Map<String, String> h = Map.copyOf(headers);
            if (!h.isEmpty()) {
                p = p.and(letter -> h.entrySet().stream()
                        .allMatch(entry -> entry.getValue()
                                .equals(letter.metadata().message().headers().get(entry.getKey()))));
            }
            String c = contains;
            if (c != null) {
                p = p.and(letter -> new String(letter.payload(), StandardCharsets.UTF_8).contains(c));
            }
            return p;
        }
    }

    /** The options replay and purge share. */
    static final class Run {
        @Option(
                names = {"-n", "--limit"},
                paramLabel = "N",
                description = "Move at most N dead letters (default: all).")
        @Nullable
        Long limit;

        @Option(
                names = "--rate",
                paramLabel = "PER_SECOND",
                description = "Move at most this many dead letters a second (default: as fast as the broker takes"
                        + " them).")
        @Nullable
        Double rate;

        @Option(names = "--dry-run", description = "Only report what would move (exit status 3 when something would).")
        boolean dryRun;

        @Option(
                names = "--page-size",
                paramLabel = "N",
                description = "Read N dead letters from the broker at a time (1 to 10000; default 100).")
        @Nullable
        Integer pageSize;

        @Option(
                names = {"-q", "--quiet"},
                description = "No progress lines on stderr.")
        boolean quiet;

        DeadLetterOptions.Builder options() {
            DeadLetterOptions.Builder b = DeadLetterOptions.builder();
            try {
                if (limit != null) {
                    b.maxMessages(limit);
                }
                if (rate != null) {
                    b.ratePerSecond(rate);
                }
                if (pageSize != null) {
                    b.pageSize(pageSize);
                }
            } catch (IllegalArgumentException e) {
                throw CliException.usage(e.getMessage() + " (see --help)", e);
            }
            if (dryRun) {
                b.dryRun();
            }
            return b;
        }
    }

    /** Runs a replay or purge, with progress on stderr, and reports it. */
    private static int move(
            ShoveCli.Session session,
            Target target,
            Run run,
            DeadLetterOptions.Builder options,
            String verb,
            Mover mover) {
        return target.with(session, dlq -> {
            if (!run.quiet) {
                options.progress(report -> session.err().println(verb + " " + report));
            }
            DeadLetterReport report;
            try {
                report = mover.move(dlq, options.build());
            } catch (DeadLetterException e) {
                throw CliException.failure(
                        verb + " of '" + dlq.name() + "' stopped: " + e.getMessage() + "; done before it stopped: "
                                + e.report() + " (the rest is still in the queue; run it again)",
                        e);
            } catch (ShoveException e) {
                throw CliException.failure(verb + " of '" + dlq.name() + "' failed: " + e.getMessage(), e);
            }
            String done = report.dryRun() ? "would " + verb : verb.endsWith("e") ? verb + "d" : verb + "ed";
            report.movedIds().forEach(id -> session.out().println(done + " " + id));
            report.refusedIds().forEach(id -> session.out().println("refused " + id + " (replayed too often already)"));
            session.out().println(report);
            boolean attention = report.refused() > 0 || (report.dryRun() && report.moved() > 0);
            return attention ? ShoveCli.ATTENTION : ShoveCli.OK;
        });
    }

    @FunctionalInterface
    private interface Mover {
        DeadLetterReport move(DeadLetterQueue<byte[]> dlq, DeadLetterOptions options);
    }

    /** {@code shove dlq replay}. */
    @Command(
            name = "replay",
            mixinStandardHelpOptions = true,
            description = {
                "Publish the chosen dead letters back to the topic, oldest first, each removed only after the broker"
                        + " took its copy. The copy keeps the message id, payload and headers; its retry count starts"
                        + " at 0 and its replay count goes up by one.",
                "Exit status 3 when a dry run would replay something, or dead letters were refused (replayed"
                        + " --max-replays times already); 1 when the replay stopped (what moved before is reported)."
            })
    static final class Replay implements Callable<Integer> {
        private final ShoveCli.Session session;

        @Mixin
        Target target = new Target();

        @Mixin
        Filter filter = new Filter();

        @Mixin
        Run run = new Run();

        @Option(
                names = "--max-replays",
                paramLabel = "N",
                description = "Refuse dead letters replayed N times already; they stay (default: "
                        + DeadLetterOptions.DEFAULT_MAX_REPLAYS + ").")
        @Nullable
        Integer maxReplays;

        Replay(ShoveCli.Session session) {
            this.session = session;
        }

        @Override
        public Integer call() {
            DeadLetterOptions.Builder options = run.options();
            if (maxReplays != null) {
                try {
                    options.maxReplays(maxReplays);
                } catch (IllegalArgumentException e) {
                    throw CliException.usage(e.getMessage() + " (see --help)", e);
                }
            }
            Predicate<DeadLetter<byte[]>> chosen = filter.predicate();
            return move(session, target, run, options, "replay", (dlq, o) -> dlq.replay(chosen, o));
        }
    }

    /** {@code shove dlq purge}. */
    @Command(
            name = "purge",
            mixinStandardHelpOptions = true,
            description = {
                "Remove the chosen dead letters for good.",
                "Without a filter (--reason, --exception, --id, --where-header, --contains) every dead letter goes:"
                        + " on a terminal the command asks first; elsewhere it needs --yes.",
                "Exit status 3 when a dry run would remove something; 1 when the purge stopped; 2 when a purge of"
                        + " everything was not confirmed."
            })
    static final class Purge implements Callable<Integer> {
        private final ShoveCli.Session session;

        @Mixin
        Target target = new Target();

        @Mixin
        Filter filter = new Filter();

        @Mixin
        Run run = new Run();

        @Option(
                names = {"-y", "--yes"},
                description = "Remove every dead letter without asking when no filter is given.")
        boolean yes;

        Purge(ShoveCli.Session session) {
            this.session = session;
        }

        @Override
        public Integer call() {
            Predicate<DeadLetter<byte[]>> chosen = filter.predicate();
            DeadLetterOptions.Builder options = run.options();
            boolean confirm = !filter.chooses() && !yes && !run.dryRun;
            if (confirm && !session.terminal()) {
                throw CliException.usage("without a filter, purge removes every dead letter of the topic; add --yes to"
                        + " confirm, choose with --reason, --exception, --id, --where-header or --contains, or look"
                        + " first with --dry-run");
            }
            return move(session, target, run, options, "purge", (dlq, o) -> {
                if (confirm && !confirmed(dlq)) {
                    throw CliException.usage("purge of '" + dlq.name() + "' not confirmed; nothing was removed");
                }
                return dlq.purge(chosen, o);
            });
        }

        /** Asks on the terminal; only {@code yes} (or {@code y}) goes on. */
        private boolean confirmed(DeadLetterQueue<byte[]> dlq) {
            OptionalLong count = dlq.count();
            String how = count.isPresent() ? count.getAsLong() + " dead letters" : "every dead letter";
            session.err().print("Remove " + how + " of '" + dlq.name() + "' for good? Type yes to go on: ");
            session.err().flush();
            String answer;
            try {
                answer = new BufferedReader(new InputStreamReader(session.in(), StandardCharsets.UTF_8)).readLine();
            } catch (IOException e) {
                throw CliException.failure("cannot read the answer: " + e.getMessage(), e);
            }
            String a = answer == null ? "" : answer.strip().toLowerCase(Locale.ROOT);
            return a.equals("yes") || a.equals("y");
        }
    }

    /** Dead letters as JSON lines. */
    static final class Json {
        private static final ObjectMapper MAPPER = new ObjectMapper();

        private Json() {}

        static String line(DeadLetter<byte[]> letter) {
            DeadMessageMetadata meta = letter.metadata();
            ObjectNode node = MAPPER.createObjectNode();
            node.put("id", letter.id());
            node.put("reason", meta.reason());
            node.put("originalQueue", meta.originalQueue());
            node.put("deathCount", meta.deathCount());
            node.put("replayCount", letter.replayCount());
            node.put("retryCount", meta.message().retryCount());
            meta.exceptionClass().ifPresent(v -> node.put("exceptionClass", v));
            meta.exceptionMessage().ifPresent(v -> node.put("exceptionMessage", v));
            meta.exceptionTrace().ifPresent(v -> node.put("exceptionTrace", v));
            meta.message().timestampMs().ifPresent(v -> node.put("timestampMs", v));
            ObjectNode headers = node.putObject("headers");
            meta.message().headers().forEach(headers::put);
            text(letter.payload())
                    .ifPresentOrElse(
                            t -> node.put("payload", t),
                            () -> node.put("payloadBase64", Base64.getEncoder().encodeToString(letter.payload())));
            return node.toString();
        }

        /** The bytes as text when they are valid UTF-8. */
        static java.util.Optional<String> text(byte[] bytes) {
            try {
                return java.util.Optional.of(StandardCharsets.UTF_8
                        .newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes))
                        .toString());
            } catch (CharacterCodingException e) {
                return java.util.Optional.empty();
            }
        }
    }
}
