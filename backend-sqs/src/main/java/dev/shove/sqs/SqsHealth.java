package dev.shove.sqs;

import dev.shove.spi.TransportContext;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The connection's health as the engine shows it ({@link TransportContext#connectionLost}): down while SQS or SNS
 * cannot be reached (a call got no answer), up again once every service that was down answered a call begun after it
 * went down. HTTP keeps no connection to watch, so the calls themselves are the probe.
 *
 * <p>Thread-safe.
 */
final class SqsHealth implements AwsClients.Reachability {
    private static final Logger log = LoggerFactory.getLogger(SqsHealth.class);

    private final TransportContext context;
    private final String endpoint;
    /** When each service that cannot be reached was last found so ({@link System#nanoTime()}). */
    private final Map<String, Long> down = new ConcurrentHashMap<>();

    /** @param endpoint where the calls go, for the reason shown in health reports (no secrets) */
    SqsHealth(TransportContext context, String endpoint) {
        this.context = context;
        this.endpoint = endpoint;
    }

    @Override
    public void answered(String service, long startedNanos) {
        Long since = down.get(service);
        // a call begun before the loss may still end well: only a later one proves the service back
        if (since == null || startedNanos - since < 0 || !down.remove(service, since)) {
            return;
        }
        if (down.isEmpty()) {
            context.connectionRestored();
        }
        log.info("{} at {} answers again", service, endpoint);
    }

    @Override
    public void unreachable(String service, Throwable failure) {
        if (down.put(service, System.nanoTime()) == null) {
            String detail = service + " at " + endpoint + " cannot be reached: " + SqsErrors.describe(failure);
            context.backendError("sqs", "connection");
            context.connectionLost(detail);
            log.warn("{}; calls are tried again until it answers", detail);
        }
    }
}
