package dev.shove.cli;

import dev.shove.Broker;
import dev.shove.HoldTier;
import dev.shove.Sequencing;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.DurationText;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** {@code shove topology show|declare}: the broker objects of a topic. */
@Command(
        name = "topology",
        mixinStandardHelpOptions = true,
        description = "Show or declare the broker objects of a topic: its main queue or shards, hold tiers and"
                + " dead-letter queue.",
        synopsisSubcommandLabel = "(show | declare)")
final class TopologyCommand implements Callable<Integer> {

    @Override
    public Integer call() {
        throw CliException.usage("name a subcommand: show or declare");
    }

    /** Prints the objects, one a line: {@code kind name [detail]}. */
    static void print(PrintWriter out, Topic<byte[]> topic) {
        String implicit = topic.hasImplicitTier() ? ", implicit: no --hold given" : "";
        if (topic.isBroadcast()) {
            out.println("broadcast  " + topic.name() + "  (each subscriber's queue is its own)");
        } else if (topic.isSequenced()) {
            int shards = topic.sequencing().map(Sequencing::routingShards).orElseThrow();
            for (int i = 0; i < shards; i++) {
                out.println("shard      " + topic.shardName(i));
                for (HoldTier tier : topic.shardHoldTiers(i)) {
                    out.println("hold       " + tier.queue() + "  (" + DurationText.of(tier.delay()) + implicit + ")");
                }
            }
        } else {
            out.println("main       " + topic.name());
            for (HoldTier tier : topic.holdTiers()) {
                out.println("hold       " + tier.queue() + "  (" + DurationText.of(tier.delay()) + implicit + ")");
            }
        }
        topic.dlq().ifPresent(dlq -> out.println("dlq        " + dlq));
    }

    /** {@code shove topology show}. */
    @Command(
            name = "show",
            mixinStandardHelpOptions = true,
            description = {
                "Print the broker objects the topic declares, one a line: main (or shard), hold and dlq with"
                        + " their names, as shove names them. Connects to nothing.",
                "Each backend's page (docs/backends) says what each object is on that broker."
            })
    static final class Show implements Callable<Integer> {
        private final ShoveCli.Session session;

        @Mixin
        TopicOptions topic = new TopicOptions();

        Show(ShoveCli.Session session) {
            this.session = session;
        }

        @Override
        public Integer call() {
            print(session.out(), topic.build(false));
            return ShoveCli.OK;
        }
    }

    /** {@code shove topology declare}. */
    @Command(
            name = "declare",
            mixinStandardHelpOptions = true,
            description = {
                "Declare the topic's broker objects on the broker (those that exist already are left as they are)"
                        + " and print them as 'show' does.",
                "Exit status 1 when the broker refuses, e.g. an object exists with other settings."
            })
    static final class Declare implements Callable<Integer> {
        private final ShoveCli.Session session;

        @Mixin
        TopicOptions topic = new TopicOptions();

        @Mixin
        BrokerOption broker = new BrokerOption();

        Declare(ShoveCli.Session session) {
            this.session = session;
        }

        @Override
        public Integer call() {
            Topic<byte[]> declared = topic.build(false);
            Broker<?> connected = broker.connect(session);
            try {
                connected.topology().declare(declared);
            } catch (TopologyException e) {
                throw CliException.failure(
                        e.getMessage() + "; declare the topic with the options the application uses, or remove the"
                                + " conflicting object",
                        e);
            } finally {
                session.connector().release(connected);
            }
            print(session.out(), declared);
            session.out().println("declared topic '" + declared.name() + "' on " + connected.backendName());
            return ShoveCli.OK;
        }
    }
}
