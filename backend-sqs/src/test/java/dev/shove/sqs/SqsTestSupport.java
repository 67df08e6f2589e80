package dev.shove.sqs;

import dev.shove.conformance.BrokerAvailability;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.http.apache5.Apache5HttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.sns.SnsClient;
import software.amazon.awssdk.services.sqs.SqsClient;

/**
 * The one fixture of the SQS ITs: where the emulator is ({@code SHOVE_SQS_ENDPOINT}, default {@code
 * http://127.0.0.1:4566}), the config the tests use, plain SDK clients that look at SQS and SNS without shove, and an
 * emulator of a test's own on its own port for the tests that restart it.
 */
final class SqsTestSupport {
    private SqsTestSupport() {}

    static String endpoint() {
        return BrokerAvailability.env("SHOVE_SQS_ENDPOINT", "http://127.0.0.1:4566");
    }

    /** Fails or skips (see {@link BrokerAvailability}) when the emulator does not answer. */
    static void requireSqs() {
        URI uri = URI.create(endpoint());
        BrokerAvailability.require("The SQS/SNS emulator (fauxqs)", "sqs", uri, 4566);
    }

    /**
     * The config of the tests: the emulator, and long polls of 2 s, so that a stopped consumer's last poll (which is
     * left to end by itself) is over soon and a test's next consumer does not wait for the messages it held back.
     */
    static SqsConfig config() {
        return config(endpoint());
    }

    static SqsConfig config(String endpoint) {
        return SqsConfig.emulator(endpoint).toBuilder()
                .receiveWait(Duration.ofSeconds(2))
                .build();
    }

    /** A name no other test run uses. */
    static String unique(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    static SqsClient sqs() {
        return sqs(endpoint());
    }

    static SqsClient sqs(String endpoint) {
        return SqsClient.builder()
                .httpClientBuilder(Apache5HttpClient.builder())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .endpointOverride(URI.create(endpoint))
                .build();
    }

    static SnsClient sns() {
        return SnsClient.builder()
                .httpClientBuilder(Apache5HttpClient.builder())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .endpointOverride(URI.create(endpoint()))
                .build();
    }

    /** The URLs of every queue whose name starts with {@code prefix}. */
    static List<String> queues(SqsClient sqs, String prefix) {
        return sqs.listQueues(r -> r.queueNamePrefix(prefix).maxResults(1000)).queueUrls();
    }

    /** Every queue URL and topic ARN now, for deleting what a test class created. */
    static Set<String> snapshot() {
        Set<String> all = new HashSet<>();
        try (SqsClient sqs = sqs();
                SnsClient sns = sns()) {
            all.addAll(queues(sqs, ""));
            sns.listTopicsPaginator(r -> {}).topics().forEach(t -> all.add(t.topicArn()));
        }
        return all;
    }

    /** Deletes every queue and topic that exists now and was not in {@code before} (best effort). */
    static void deleteCreatedSince(Set<String> before) {
        Set<String> now = snapshot();
        now.removeAll(before);
        try (SqsClient sqs = sqs();
                SnsClient sns = sns()) {
            for (String id : now) {
                try {
                    if (id.startsWith("arn:")) {
                        sns.deleteTopic(r -> r.topicArn(id));
                    } else {
                        sqs.deleteQueue(r -> r.queueUrl(id));
                    }
                } catch (RuntimeException e) {
                    // best effort: a leftover queue only costs the emulator's memory
                }
            }
        }
    }

    /** An emulator of a test's own, on its own port: for tests that kill or restart it. */
    static final class OwnEmulator implements AutoCloseable {
        private final int port;
        private final Path log;
        private Process process;

        /** Starts an emulator on {@code preferredPort}, or the next free port above it (another test may hold it). */
        OwnEmulator(int preferredPort) throws IOException {
            this.port = freePort(preferredPort);
            this.log = Files.createTempFile("shove-fauxqs-" + port + "-", ".log");
            start();
        }

        String endpoint() {
            return "http://127.0.0.1:" + port;
        }

        private static int freePort(int from) throws IOException {
            for (int candidate = from; candidate < from + 50; candidate++) {
                try (ServerSocket probe = new ServerSocket(candidate, 1, InetAddress.getLoopbackAddress())) {
                    probe.setReuseAddress(true);
                    return candidate;
                } catch (IOException e) {
                    // taken: try the next one
                }
            }
            throw new IOException("no free port in " + from + ".." + (from + 49) + " for a test emulator");
        }

        /** Where brokers.sh installed fauxqs: {@code $SHOVE_BROKERS_DIR/sqs}, default {@code ~/.cache/shove-brokers/sqs}. */
        static Path installation() {
            String dir = BrokerAvailability.env(
                    "SHOVE_BROKERS_DIR", System.getProperty("user.home") + "/.cache/shove-brokers");
            return Path.of(dir, "sqs");
        }

        void start() throws IOException {
            Path launcher = installation().resolve("launcher.mjs");
            if (!Files.exists(launcher)) {
                throw new IllegalStateException(
                        "fauxqs is not installed at " + launcher + "; run scripts/brokers.sh up sqs first");
            }
            List<String> command = new ArrayList<>(List.of("node", launcher.toString()));
            ProcessBuilder pb = new ProcessBuilder(command)
                    .directory(installation().toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()));
            pb.environment().put("FAUXQS_BIND_HOST", "127.0.0.1");
            pb.environment().put("FAUXQS_PORT", Integer.toString(port));
            process = pb.start();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (System.nanoTime() < deadline) {
                try (Socket socket = new Socket("127.0.0.1", port)) {
                    socket.setSoLinger(false, 0);
                    return;
                } catch (IOException e) {
                    if (!process.isAlive()) {
                        throw new IllegalStateException("fauxqs on port " + port + " exited; see " + log);
                    }
                    try {
                        Thread.sleep(50);
                    } catch (InterruptedException ie) {
                        Thread.currentThread().interrupt();
                        throw new IllegalStateException(ie);
                    }
                }
            }
            throw new IllegalStateException("fauxqs on port " + port + " did not start within 30 s; see " + log);
        }

        /** Kills the emulator at once (SIGKILL): it loses everything it held. */
        void kill() {
            process.destroyForcibly();
            try {
                process.waitFor(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void close() {
            kill();
        }
    }
}
