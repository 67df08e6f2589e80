package dev.shove.rabbitmq;

import dev.shove.spi.DurationText;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports a management API that cannot be read once per outage: a WARN with the fix the first time, DEBUG while it
 * lasts (the stats are read again every minute, and a broker without the plugin would otherwise repeat the WARN every
 * minute for ever), an INFO when the API answers again. Thread-safe.
 */
final class ManagementOutage {
    private static final Logger log = LoggerFactory.getLogger(RabbitMqTransport.class);

    private final AtomicBoolean reported = new AtomicBoolean();

    /** The API at {@code base} failed with {@code e}; it is not read again for {@code retryAfter}. */
    void failed(String base, Exception e, Duration retryAfter) {
        if (reported.compareAndSet(false, true)) {
            log.warn(
                    "the RabbitMQ management API at {} cannot be read ({}); unacknowledged messages are not counted"
                            + " (shove.backlog.unacked reads 0) until it can. Enable the plugin"
                            + " (rabbitmq-plugins enable rabbitmq_management), point RabbitMqConfig.Builder"
                            + ".managementApi(...) (managementApi=<url> in a URI) at it, or set noManagementApi()"
                            + " (managementApi=false) to stop reading it. Said once; it is tried again every {}",
                    base,
                    e.toString(),
                    DurationText.of(retryAfter));
        } else {
            log.debug("the RabbitMQ management API at {} still cannot be read: {}", base, e.toString());
        }
    }

    /** The API at {@code base} answered. */
    void answered(String base) {
        if (reported.compareAndSet(true, false)) {
            log.info("the RabbitMQ management API at {} answers again", base);
        }
    }
}
