package dev.shove.redis;

import dev.shove.Position;
import dev.shove.ShoveException;
import dev.shove.Topic;
import dev.shove.spi.Delivery;
import dev.shove.spi.DeliverySink;
import dev.shove.spi.SettleCallback;
import dev.shove.spi.Settlement;
import dev.shove.spi.Subscription;
import dev.shove.spi.SubscriptionRequest;
import io.lettuce.core.Limit;
import io.lettuce.core.Range;
import io.lettuce.core.StreamMessage;
import io.lettuce.core.XReadArgs;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.LockSupport;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One subscriber of a broadcast topic: reads the topic's stream with {@code XREAD ... BLOCK} (no consumer group) from
 * the end as it was when it subscribed ({@code $}, resolved before {@link #start} returns), or from its start position.
 * Best effort, as broadcasts are: nothing is acknowledged, a returned message is not read again, and what the stream
 * trimmed ({@code MAXLEN ~ broadcastMaxLen}) before a slow subscriber read it is gone. One virtual thread, {@code
 * shove-redis-broadcast-{consumerId}}.
 */
final class RedisBroadcast implements Subscription {
    private static final Logger log = LoggerFactory.getLogger(RedisBroadcast.class);

    private final RedisTransport transport;
    private final SubscriptionRequest request;
    private final DeliverySink sink;
    private final Topic<?> topic;
    private final String stream;
    private final int window;
    private final Thread thread;
    private final AtomicInteger outstanding = new AtomicInteger();
    private final CountDownLatch finished = new CountDownLatch(1);
    private volatile RedisConnector.@Nullable Reader reader;
    private volatile boolean paused;
    private volatile boolean closing;
    private volatile boolean reading;
    private String lastId = "0-0";
    private long failures;

    RedisBroadcast(RedisTransport transport, SubscriptionRequest request, DeliverySink sink) {
        this.transport = transport;
        this.request = request;
        this.sink = sink;
        this.topic = request.topic();
        this.stream = transport.keys().main(topic);
        this.window = request.window();
        this.thread = Thread.ofVirtual()
                .name("shove-redis-broadcast-" + request.consumerId())
                .unstarted(this::run);
    }

    void start() {
        Position start = request.startAt();
        if (start == null || start instanceof Position.End) {
            List<StreamMessage<String, byte[]>> last = transport.await(
                    transport
                            .redis()
                            .xrevrange(stream, Range.create("-", "+"), Limit.create(0, 1))
                            .toCompletableFuture(),
                    "read the end of broadcast stream " + stream);
            lastId = last.isEmpty() ? "0-0" : last.getFirst().getId();
        } else if (start instanceof Position.Timestamp t) {
            lastId = RedisEntries.before(Math.max(0, t.time().toEpochMilli()) + "-0");
        } else if (start instanceof Position.Sequence s) {
            lastId = RedisEntries.before(RedisEntries.idOf(s.sequence()));
        } else if (start instanceof Position.Captured c) {
            lastId = RedisEntries.before(RedisEntries.idOf(c.offset()));
        } else {
            lastId = "0-0";
        }
        reader = transport.connector().openReader(stream);
        thread.start();
    }

    @Override
    public void settle(Delivery delivery, Settlement settlement, SettleCallback callback) {
        outstanding.decrementAndGet();
        LockSupport.unpark(thread);
        callback.settled(null); // nothing to acknowledge without a group
    }

    @Override
    public void pause() {
        paused = true;
    }

    @Override
    public void close() {
        paused = true;
        if (!closing) {
            closing = true;
            LockSupport.unpark(thread);
            RedisConnector.Reader r = reader;
            if (reading && r != null) {
                transport.connector().unblock(r);
            }
        }
        if (Thread.currentThread() != thread) {
            try {
                finished.await(transport.config().responseTimeout().toMillis() + 5_000, TimeUnit.MILLISECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        transport.closed(this, null);
    }

    @SuppressWarnings("unchecked")
    private void run() {
        try {
            while (!closing) {
                int room = window - outstanding.get();
                if (paused || room <= 0) {
                    LockSupport.parkNanos(this, TimeUnit.MILLISECONDS.toNanos(100));
                    continue;
                }
                RedisConnector.Reader r = reader;
                List<StreamMessage<String, byte[]>> messages;
                try {
                    if (r == null) {
                        r = transport.connector().openReader(stream);
                        reader = r;
                    }
                    reading = true;
                    if (closing) {
                        break;
                    }
                    messages = r.connection()
                            .sync()
                            .xread(
                                    XReadArgs.Builder.count(room)
                                            .block(transport.config().blockTimeout()),
                                    XReadArgs.StreamOffset.from(stream, lastId));
                    failures = 0;
                } catch (RuntimeException e) {
                    reading = false;
                    if (closing) {
                        break;
                    }
                    failures++;
                    transport.context().backendError("redis", "read");
                    if (failures == 1 || failures % 50 == 0) {
                        log.warn(
                                "broadcast subscriber {} of topic '{}' cannot read from Redis ({}); retrying",
                                request.consumerId(),
                                topic.name(),
                                RedisTransport.rootMessage(e));
                    }
                    if (String.valueOf(e.getMessage()).startsWith("MOVED") && r != null) {
                        transport.connector().refreshTopology();
                        reader = null;
                        r.close();
                    }
                    LockSupport.parkNanos(
                            this,
                            Duration.ofMillis(Math.min(2_000, 100L * failures)).toNanos());
                    continue;
                } finally {
                    reading = false;
                }
                if (messages == null || messages.isEmpty() || paused) {
                    continue;
                }
                List<Delivery> batch = new ArrayList<>(messages.size());
                for (StreamMessage<String, byte[]> m : messages) {
                    lastId = m.getId();
                    RedisEntries.Message message = RedisEntries.read(m.getBody());
                    batch.add(new RedisDelivery(
                            this, stream, topic.name(), m.getId(), message.payload(), message.headers(), 1, false));
                }
                outstanding.addAndGet(batch.size());
                sink.deliverAll(batch);
            }
        } catch (Throwable t) {
            if (!closing) {
                closing = true;
                sink.failed(new ShoveException(
                        "Redis broadcast subscriber " + request.consumerId() + " of topic '" + topic.name()
                                + "' failed: " + t,
                        t));
            }
        } finally {
            RedisConnector.Reader r = reader;
            reader = null;
            if (r != null) {
                r.close();
            }
            finished.countDown();
        }
    }

    @Override
    public String toString() {
        return "RedisBroadcast[" + request.consumerId() + ", topic=" + topic.name() + "]";
    }
}
