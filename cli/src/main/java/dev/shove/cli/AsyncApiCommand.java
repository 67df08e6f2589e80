package dev.shove.cli;

import dev.shove.Topic;
import dev.shove.asyncapi.AsyncApi;
import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code shove asyncapi}: the AsyncAPI 3.0 document of the topic constants of an application's class. */
@Command(
        name = "asyncapi",
        mixinStandardHelpOptions = true,
        description = {
            "Print the AsyncAPI 3.0 document of the topics a class declares as public static final Topic fields"
                    + " (channels for main queue or shards, hold tiers and dead-letter queue; payload schemas from"
                    + " the message types; headers; the broker's bindings). Connects to nothing.",
            "The class and its message types are loaded from --classpath; see docs/concepts/asyncapi.md."
        })
final class AsyncApiCommand implements Callable<Integer> {
    /** Formats of the document. */
    enum Format {
        yaml,
        json
    }

    private final ShoveCli.Session session;

    @Option(
            names = {"-c", "--class"},
            required = true,
            paramLabel = "CLASS",
            description = "The class whose public static final Topic fields are the topics, e.g. com.example.Topics.")
    String className = "";

    @Option(
            names = {"--classpath", "--cp"},
            paramLabel = "PATH",
            description = {
                "Jars and class directories holding the class and its message types, separated by the platform's"
                        + " path separator (: or ;); repeatable. Its shove classes come from the CLI itself."
            })
    List<String> classpath = new ArrayList<>();

    @Option(
            names = {"-F", "--format"},
            paramLabel = "FORMAT",
            defaultValue = "yaml",
            description = "yaml or json (default: ${DEFAULT-VALUE}).")
    Format format = Format.yaml;

    @Option(
            names = {"-b", "--broker"},
            paramLabel = "URI",
            description = "The broker the application runs on, as the URI it connects with; it becomes the"
                    + " document's server and each channel gets its bindings. Default: "
                    + ShoveCli.BROKER_ENV + " when set, else no server.")
    @Nullable
    String broker;

    @Option(
            names = "--server-name",
            paramLabel = "NAME",
            defaultValue = "production",
            description = "The server's name in the document (default: ${DEFAULT-VALUE}).")
    String serverName = "production";

    @Option(
            names = "--title",
            paramLabel = "TITLE",
            description = "The document's title (default: the class's simple name).")
    @Nullable
    String title;

    @Option(
            names = "--api-version",
            paramLabel = "VERSION",
            defaultValue = "1.0.0",
            description = "The version of the application's API (default: ${DEFAULT-VALUE}).")
    String apiVersion = "1.0.0";

    AsyncApiCommand(ShoveCli.Session session) {
        this.session = session;
    }

    @Override
    public Integer call() throws Exception {
        List<URL> urls = new ArrayList<>();
        List<Path> entries = new ArrayList<>();
        for (String path : classpath) {
            for (String part : path.split(java.util.regex.Pattern.quote(File.pathSeparator))) {
                if (!part.isBlank()) {
                    entries.add(Path.of(part));
                }
            }
        }
        for (Path entry : entries) {
            if (!Files.exists(entry)) {
                throw CliException.usage("--classpath entry " + entry + " does not exist");
            }
            try {
                urls.add(entry.toUri().toURL());
            } catch (MalformedURLException e) {
                throw CliException.usage("--classpath entry " + entry + ": " + e.getMessage(), e);
            }
        }
        Thread thread = Thread.currentThread();
        ClassLoader previous = thread.getContextClassLoader();
        // parent first: dev.shove.Topic must be the CLI's own, or the fields would not be Topics to it
        try (URLClassLoader loader = new URLClassLoader(urls.toArray(URL[]::new), ShoveCli.class.getClassLoader())) {
            thread.setContextClassLoader(loader);
            Class<?> holder = load(loader);
            List<Topic<?>> topics = topics(holder);
            AsyncApi.Builder b = AsyncApi.builder()
                    .title(title != null ? title : holder.getSimpleName())
                    .version(apiVersion)
                    .topics(topics);
            String server = broker != null ? broker : session.env().get(ShoveCli.BROKER_ENV);
            AsyncApi api;
            try {
                if (server != null && !server.isBlank()) {
                    b.server(serverName, server);
                }
                api = b.build();
            } catch (IllegalArgumentException | IllegalStateException e) {
                throw CliException.usage("AsyncAPI document of " + className + ": " + e.getMessage(), e);
            }
            session.out().print(format == Format.json ? api.toJson() : api.toYaml());
            session.out().flush();
            return ShoveCli.OK;
        } finally {
            thread.setContextClassLoader(previous);
        }
    }

    private Class<?> load(ClassLoader loader) {
        try {
            return Class.forName(className, true, loader);
        } catch (ClassNotFoundException | NoClassDefFoundError e) {
            throw CliException.usage(
                    "class " + className + " not found"
                            + (classpath.isEmpty()
                                    ? "; give its jar or classes directory with --classpath"
                                    : " on --classpath " + classpath)
                            + " (" + e.getMessage() + ")",
                    e);
        } catch (ExceptionInInitializerError e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            throw CliException.failure(
                    "class " + className + " failed to initialize: " + cause + "; its topics are built there", cause);
        }
    }

    private List<Topic<?>> topics(Class<?> holder) {
        List<Topic<?>> topics;
        try {
            topics = AsyncApi.topicsOf(holder);
        } catch (IllegalArgumentException e) {
            throw CliException.usage(e.getMessage(), e);
        }
        if (topics.isEmpty()) {
            throw CliException.usage("class " + className
                    + " declares no topics: the document is made of its public static final Topic fields");
        }
        return topics;
    }
}
