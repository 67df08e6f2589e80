package dev.shove.cli;

import dev.shove.Broker;
import java.io.Console;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/**
 * The {@code shove} command line, the main class of {@code shove-cli-<version>-all.jar}: {@code ping}, {@code
 * topology show|declare}, {@code publish}, {@code dlq count|list|replay|purge} and {@code asyncapi}, against the broker
 * a URI names ({@code --broker} or the environment variable {@value #BROKER_ENV}).
 *
 * <pre>{@code
 * java -jar shove-cli-0.1.0-all.jar dlq count --broker amqp://guest:guest@localhost:5672 --topic orders
 * }</pre>
 *
 * <p>The exit status is one of {@link #OK}, {@link #FAILURE}, {@link #USAGE} and {@link #ATTENTION}. An error is one
 * line on stderr naming the topic or queue and what to do; {@code --verbose} adds the stack trace and the clients' log.
 * Not thread-safe: one instance runs one command line at a time.
 *
 * @since 0.1.0
 */
public final class ShoveCli {
    /** Exit status: the command did what it was asked, and found nothing that needs attention. */
    public static final int OK = 0;

    /** Exit status: the broker or the operation failed (no connection, a refused publish, a replay that stopped). */
    public static final int FAILURE = 1;

    /** Exit status: the command line is wrong (an unknown option, a missing broker URI, a topic that cannot be). */
    public static final int USAGE = 2;

    /**
     * Exit status: the command ran, and dead letters need attention: a dry run found some that would move, or a replay
     * refused some (replayed too often already).
     */
    public static final int ATTENTION = 3;

    /** The environment variable that names the broker when {@code --broker} is not given. */
    public static final String BROKER_ENV = "SHOVE_BROKER_URI";

    private final Session session;

    private ShoveCli(Session session) {
        this.session = session;
    }

    /**
     * Runs one command line and exits the JVM with its status.
     *
     * @param args the command and its options, e.g. {@code dlq count --topic orders}
     */
    public static void main(String[] args) {
        boolean verbose = java.util.Arrays.asList(args).contains("--verbose");
        // before any logger exists: the CLI reports what went wrong in one line, so the clients' and the engine's log
        // (reconnect warnings, connection attempts) is shown only with --verbose
        System.setProperty("org.slf4j.simpleLogger.defaultLogLevel", verbose ? "info" : "error");
        System.setProperty("org.slf4j.simpleLogger.logFile", "System.err");
        PrintWriter out = new PrintWriter(System.out, true, StandardCharsets.UTF_8);
        PrintWriter err = new PrintWriter(System.err, true, StandardCharsets.UTF_8);
        int status = new ShoveCli(new Session(Broker::connect, System.getenv(), System.in, out, err, isTerminal()))
                .run(args);
        out.flush();
        err.flush();
        System.exit(status);
    }

    /** For tests: a command line with its own broker connector, environment, input and output; no terminal. */
    static ShoveCli of(Connector connector, Map<String, String> env, InputStream in, PrintWriter out, PrintWriter err) {
        return new ShoveCli(new Session(connector, env, in, out, err, false));
    }

    /** For tests: as {@link #of(Connector, Map, InputStream, PrintWriter, PrintWriter)}, as if on a terminal. */
    static ShoveCli onTerminal(
            Connector connector, Map<String, String> env, InputStream in, PrintWriter out, PrintWriter err) {
        return new ShoveCli(new Session(connector, env, in, out, err, true));
    }

    /**
     * Whether a person sits at this process: standard input and output are a terminal. {@code System.console()} says
     * so on Java 21; from Java 22 it returns a console even when redirected, and {@code Console.isTerminal()} (absent
     * from the Java 21 API this module compiles against) tells.
     */
    private static boolean isTerminal() {
        Console console = System.console();
        if (console == null) {
            return false;
        }
        try {
            return (Boolean) Console.class.getMethod("isTerminal").invoke(console);
        } catch (ReflectiveOperationException e) {
            return true; // Java 21: a console exists only on a terminal
        }
    }

    /** Runs one command line and returns its exit status. */
    int run(String... args) {
        CommandLine cli = commandLine();
        return cli.execute(args);
    }

    CommandLine commandLine() {
        CommandLine cli = new CommandLine(new Root(session));
        cli.addSubcommand(new PingCommand(session));
        CommandLine topology = new CommandLine(new TopologyCommand());
        topology.addSubcommand(new TopologyCommand.Show(session));
        topology.addSubcommand(new TopologyCommand.Declare(session));
        cli.addSubcommand(topology);
        cli.addSubcommand(new PublishCommand(session));
        CommandLine dlq = new CommandLine(new DlqCommand());
        dlq.addSubcommand(new DlqCommand.Count(session));
        dlq.addSubcommand(new DlqCommand.ListLetters(session));
        dlq.addSubcommand(new DlqCommand.Replay(session));
        dlq.addSubcommand(new DlqCommand.Purge(session));
        cli.addSubcommand(dlq);
        cli.addSubcommand(new AsyncApiCommand(session));
        cli.setOut(session.out());
        cli.setErr(session.err());
        cli.setCaseInsensitiveEnumValuesAllowed(true);
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> session.fail(commandLine, e));
        cli.setParameterExceptionHandler((e, args) -> {
            CommandLine failed = e.getCommandLine();
            session.err().println(qualifiedName(failed) + ": " + e.getMessage());
            session.err().println("Run '" + qualifiedName(failed) + " --help' for its options.");
            return USAGE;
        });
        return cli;
    }

    static String qualifiedName(CommandLine commandLine) {
        return commandLine.getCommandSpec().qualifiedName(" ");
    }

    /** Opens the broker a URI names; the default connects ({@link Broker#connect(String)}) and closes after. */
    interface Connector {
        /** Connects to the broker {@code uri} names. */
        Broker<?> connect(String uri);

        /** Gives back a broker {@link #connect} returned, when the command is done with it. */
        default void release(Broker<?> broker) {
            broker.close();
        }
    }

    /** What the commands share: how to connect, the environment, the streams, and whether to be verbose. */
    static final class Session {
        private final Connector connector;
        private final Map<String, String> env;
        private final InputStream in;
        private final PrintWriter out;
        private final PrintWriter err;
        private final boolean terminal;
        private boolean verbose;

        Session(
                Connector connector,
                Map<String, String> env,
                InputStream in,
                PrintWriter out,
                PrintWriter err,
                boolean terminal) {
            this.connector = Objects.requireNonNull(connector, "connector");
            this.env = Map.copyOf(env);
            this.in = in;
            this.out = out;
            this.err = err;
            this.terminal = terminal;
        }

        /** {@return whether a person can answer a question on standard input} */
        boolean terminal() {
            return terminal;
        }

        Connector connector() {
            return connector;
        }

        Map<String, String> env() {
            return env;
        }

        InputStream in() {
            return in;
        }

        PrintWriter out() {
            return out;
        }

        PrintWriter err() {
            return err;
        }

        boolean verbose() {
            return verbose;
        }

        void verbose(boolean verbose) {
            this.verbose = verbose;
        }

        /** Reports a command's failure in one line (the stack trace too with --verbose) and returns its status. */
        int fail(CommandLine commandLine, Exception e) {
            int status = e instanceof CliException c ? c.status() : FAILURE;
            String message = forTheCommandLine(e instanceof CliException ? e.getMessage() : describe(e));
            err.println(qualifiedName(commandLine) + ": " + message);
            if (verbose) {
                e.printStackTrace(err);
            }
            err.flush();
            return status;
        }

        /**
         * The library's advice in the CLI's words: a broker or the core tells an application to call {@code
         * broker.topology().declare(topic)}; on the command line that is {@code shove topology declare}.
         */
        static String forTheCommandLine(String message) {
            return message.replace(
                    "broker.topology().declare(topic)",
                    "shove topology declare --topic NAME (with the topic's --hold, --dlq and --shards options)");
        }

        private static String describe(Throwable e) {
            StringBuilder text = new StringBuilder(String.valueOf(e.getMessage()));
            Throwable cause = e.getCause();
            for (int depth = 0; cause != null && depth < 3; depth++, cause = cause.getCause()) {
                if (cause.getMessage() != null && !text.toString().contains(cause.getMessage())) {
                    text.append(" (").append(cause.getMessage()).append(')');
                }
            }
            return text.toString().replace('\n', ' ');
        }
    }

    @Command(
            name = "shove",
            mixinStandardHelpOptions = true,
            versionProvider = Root.Version.class,
            description = {
                "Operate shove topics on any broker: ping it, show and declare a topic's broker objects, publish raw"
                        + " messages, count, list, replay and purge dead letters, and write an AsyncAPI document.",
                "The broker is named by a URI: --broker URI, or the environment variable " + BROKER_ENV
                        + " (kafka://host:9092, amqp://user:pw@host:5672/vhost, nats://host:4222,"
                        + " redis://host:6379, sqs://region?endpoint=..., memory:)."
            },
            footerHeading = "%nExit status:%n",
            footer = {
                "  0  done",
                "  1  the broker or the operation failed",
                "  2  the command line is wrong",
                "  3  dead letters need attention: a dry run would move some, or a replay refused some"
            },
            subcommandsRepeatable = false)
    static final class Root implements Callable<Integer> {
        private final Session session;

        @CommandLine.Spec
        CommandLine.Model.@Nullable CommandSpec spec;

        Root(Session session) {
            this.session = session;
        }

        @Option(
                names = "--verbose",
                scope = ScopeType.INHERIT,
                description = "Print the stack trace of an error, and the broker clients' log at INFO.")
        void verbose(boolean verbose) {
            session.verbose(verbose);
        }

        @Override
        public Integer call() {
            Objects.requireNonNull(spec, "spec").commandLine().usage(session.out());
            return USAGE;
        }

        static final class Version implements CommandLine.IVersionProvider {
            @Override
            public String[] getVersion() {
                String version = ShoveCli.class.getPackage().getImplementationVersion();
                return new String[] {"shove " + (version == null ? "(development build)" : version)};
            }
        }
    }
}
