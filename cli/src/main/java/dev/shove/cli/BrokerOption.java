package dev.shove.cli;

import dev.shove.AuthenticationException;
import dev.shove.Broker;
import dev.shove.BrokerUnavailableException;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Option;

/** The {@code --broker} option of the commands that connect, and the connection it opens. */
final class BrokerOption {
    @Option(
            names = {"-b", "--broker"},
            paramLabel = "URI",
            description = {
                "The broker to connect to, e.g. kafka://localhost:9092, amqp://guest:guest@localhost:5672,"
                        + " nats://localhost:4222, redis://localhost:6379, sqs://us-east-1?endpoint=http://localhost:4566,"
                        + " memory:. Default: the environment variable " + ShoveCli.BROKER_ENV + "."
            })
    @Nullable
    String uri;

    /** The URI given, else the environment's; a usage error when neither is there. */
    String uri(ShoveCli.Session session) {
        if (uri != null && !uri.isBlank()) {
            return uri;
        }
        String fromEnv = session.env().get(ShoveCli.BROKER_ENV);
        if (fromEnv != null && !fromEnv.isBlank()) {
            return fromEnv;
        }
        throw CliException.usage(
                "no broker: give --broker URI (e.g. --broker kafka://localhost:9092) or set " + ShoveCli.BROKER_ENV);
    }

    /**
     * Connects, turning a URI no backend reads into a usage error, and an unreachable broker or one that refuses the
     * credentials or certificate into a failure.
     */
    Broker<?> connect(ShoveCli.Session session) {
        String target = uri(session);
        try {
            return session.connector().connect(target);
        } catch (IllegalArgumentException e) {
            throw CliException.usage("broker URI: " + e.getMessage(), e);
        } catch (BrokerUnavailableException e) {
            // the backends' messages say where they tried and how to start the broker
            String message = String.valueOf(e.getMessage());
            throw CliException.failure(
                    message.startsWith("cannot connect") ? message : "cannot connect to the broker: " + message, e);
        } catch (AuthenticationException e) {
            // the backends' messages name the broker and what to check (user, password, trust store), never a secret
            throw CliException.failure("the broker refused the connection: " + e.getMessage(), e);
        }
    }
}
