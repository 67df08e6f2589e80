package dev.shove.cli;

import dev.shove.Broker;
import dev.shove.PublishException;
import dev.shove.Topic;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/** {@code shove publish}: one message of raw bytes, with headers, to a topic. */
@Command(
        name = "publish",
        mixinStandardHelpOptions = true,
        description = {
            "Publish one message to a topic: the payload's bytes exactly as given (--payload, --file, or standard"
                    + " input), with headers. The topic is not declared: run 'topology declare' first.",
            "shove gives the message its id; headers starting with 'shove-' are the library's and are refused."
        })
final class PublishCommand implements Callable<Integer> {
    private final ShoveCli.Session session;

    @Mixin
    TopicOptions topic = new TopicOptions();

    @Mixin
    BrokerOption broker = new BrokerOption();

    @Option(
            names = {"-H", "--header"},
            paramLabel = "NAME=VALUE",
            description = "A header of the message, repeatable.")
    Map<String, String> headers = new LinkedHashMap<>();

    @Option(
            names = {"-k", "--key"},
            paramLabel = "KEY",
            description = "The ordering key of the message on a sequenced topic (--shards); required there.")
    @Nullable
    String key;

    @ArgGroup(exclusive = true)
    @Nullable
    Source source;

    static final class Source {
        @Option(
                names = {"-p", "--payload"},
                paramLabel = "TEXT",
                description = "The payload, e.g. a JSON document, sent as its UTF-8 bytes.")
        @Nullable
        String text;

        @Option(
                names = {"-f", "--file"},
                paramLabel = "FILE",
                description = "A file whose bytes are the payload.")
        @Nullable
        Path file;
    }

    PublishCommand(ShoveCli.Session session) {
        this.session = session;
    }

    @Override
    public Integer call() {
        if (topic.shards != null && key == null) {
            throw CliException.usage(
                    "topic '" + topic.name + "' is sequenced (--shards): give the message's ordering key with --key");
        }
        if (topic.shards == null && key != null) {
            throw CliException.usage("--key is the ordering key of a sequenced topic; topic '" + topic.name
                    + "' is not sequenced: add --shards N as the application declares it, or drop --key");
        }
        Topic<byte[]> target = topic.build(false, key);
        byte[] payload = payload();
        Broker<?> connected = broker.connect(session);
        try {
            connected.publisher().publishWithHeaders(target, payload, headers);
        } catch (PublishException e) {
            throw CliException.failure(
                    "publish to topic '" + target.name() + "' failed: " + e.getMessage()
                            + (e.isRetriable()
                                    ? "; try again"
                                    : "; check that the topic is declared (topology declare)"),
                    e);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("publish to topic '" + target.name() + "': " + e.getMessage(), e);
        } finally {
            session.connector().release(connected);
        }
        session.out().println("published " + payload.length + " bytes to topic '" + target.name() + "'");
        return ShoveCli.OK;
    }

    private byte[] payload() {
        Source s = source;
        if (s != null && s.text != null) {
            return s.text.getBytes(StandardCharsets.UTF_8);
        }
        if (s != null && s.file != null) {
            try {
                return Files.readAllBytes(s.file);
            } catch (IOException e) {
                throw CliException.usage("cannot read --file " + s.file + ": " + e, e);
            }
        }
        try {
            return session.in().readAllBytes();
        } catch (IOException e) {
            throw CliException.failure("cannot read the payload from standard input: " + e, e);
        }
    }
}
