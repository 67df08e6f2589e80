package dev.shove.nats;

import dev.shove.conformance.BrokerAvailability;
import io.nats.client.Connection;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.Nats;
import io.nats.client.Options;
import java.io.IOException;
import java.net.URI;
import java.time.Duration;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The shared setup of the NATS integration tests: where the server is ({@code SHOVE_NATS_URL}, default {@code
 * nats://127.0.0.1:4222}), the check that it answers, a config with short timings, and the clean-up of the streams a
 * test class created.
 */
final class NatsTestSupport {
    static final String URL = BrokerAvailability.env("SHOVE_NATS_URL", "nats://127.0.0.1:4222");

    private NatsTestSupport() {}

    /** Fails or skips (see {@link BrokerAvailability}) when the server does not answer. */
    static void requireNats() {
        BrokerAvailability.require("NATS", "nats", URI.create(URL), NatsConfig.DEFAULT_PORT);
    }

    /** The test server with short timings: ack_wait 2 s, shard leases 2 s. */
    static NatsConfig.Builder config() {
        return NatsConfig.builder(URL)
                .ackWait(Duration.ofSeconds(2))
                .shardLease(Duration.ofSeconds(2))
                .streamMaxAge(Duration.ofHours(1));
    }

    /** A plain jnats connection to the test server, for checks and clean-up. */
    static Connection raw() throws IOException, InterruptedException {
        return Nats.connect(Options.builder().server(URL).build());
    }

    static Set<String> streams() throws Exception {
        Connection c = raw();
        try {
            return new HashSet<>(c.jetStreamManagement().getStreamNames());
        } finally {
            c.close();
        }
    }

    /** Deletes the streams that are not in {@code before} (those the tests created), except shove's buckets. */
    static void deleteStreamsCreatedSince(Set<String> before) throws Exception {
        Connection c = raw();
        try {
            JetStreamManagement jsm = c.jetStreamManagement();
            List<String> now = jsm.getStreamNames();
            for (String s : now) {
                if (!before.contains(s) && !s.startsWith("KV_")) {
                    try {
                        jsm.deleteStream(s);
                    } catch (JetStreamApiException | IOException e) {
                        // already gone
                    }
                }
            }
        } finally {
            c.close();
        }
    }
}
