package dev.shove.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.AlreadyClosedException;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.ConfirmListener;
import com.rabbitmq.client.Connection;
import com.rabbitmq.client.ReturnListener;
import com.rabbitmq.client.ShutdownListener;
import com.rabbitmq.client.ShutdownSignalException;
import dev.shove.PublishException;
import dev.shove.ShoveHeaders;
import dev.shove.TopologyException;
import dev.shove.spi.DurationText;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.ReentrantLock;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Publishes with publisher confirms over a small pool of channels, each queue (or exchange) on its own channel of the
 * pool (which keeps a queue's publish order, as RabbitMQ orders only within a channel). A publish completes when the
 * broker confirms it ({@code basic.ack}): the message is then in every queue it was routed to, on disk for a
 * persistent message in a durable queue.
 *
 * <p>Every publish to a queue is {@code mandatory}: a message no queue takes (its queue was deleted, its topic never
 * declared) comes back as {@code basic.return} and fails with a {@link TopologyException}, instead of vanishing. A
 * publish to a broadcast topic's fanout exchange is not (see {@link Route}). A {@code basic.nack} (the broker could
 * not store it) fails with a {@link PublishException}. Neither is retried. When the
 * channel or connection fails under a publish, its fate is unknown and it is tried again, up to the configured
 * attempts, with jittered exponential backoff (so it may be stored twice: at-least-once).
 *
 * <p>A publish the broker refuses for good closes its channel with a channel error: 406 PRECONDITION_FAILED (over the
 * broker's {@code max_message_size}, an invalid {@code expiration} or {@code user-id}, a {@code CC}/{@code BCC}
 * header that is not an array), 403 ACCESS_REFUSED (no write permission) or 404 NOT_FOUND (the exchange is gone).
 * Trying it again would fail the same way and close another channel, so it fails at once, not retriable. The channel
 * error does not say which publish caused it: when the channel had only that publish awaiting its confirm, it is the
 * culprit; every other publish it took down (it may be innocent) is tried again alone, on a channel of its own, where
 * a refusal is certainly its own.
 *
 * <p>Futures are completed on virtual threads, never on the connection's I/O thread, so a caller's continuation may
 * block or publish again. Thread-safe.
 */
final class ConfirmPublisher implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ConfirmPublisher.class);

    static final long BACKOFF_BASE_MS = 100;
    static final long BACKOFF_MAX_MS = 2_000;
    static final long SWEEP_PERIOD_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Connection connection;
    private final int attempts;
    private final long confirmTimeoutNanos;
    private final ScheduledExecutorService scheduler;
    private final ExecutorService completions;
    private final String brokerAddress;
    private final PooledChannel[] pool;
    private final ScheduledFuture<?> sweeper;
    /** One publish at a time {@linkplain #attemptAlone alone}, so a burst of them opens one channel at a time. */
    private final ReentrantLock isolation = new ReentrantLock();

    private volatile boolean closed;

    ConfirmPublisher(
            Connection connection,
            int channels,
            int attempts,
            long confirmTimeoutNanos,
            ScheduledExecutorService scheduler,
            ExecutorService completions,
            String brokerAddress) {
        this.connection = connection;
        this.attempts = attempts;
        this.confirmTimeoutNanos = confirmTimeoutNanos;
        this.scheduler = scheduler;
        this.completions = completions;
        this.brokerAddress = brokerAddress;
        this.pool = new PooledChannel[channels];
        long period =
                Math.max(TimeUnit.MILLISECONDS.toNanos(50), Math.min(confirmTimeoutNanos / 4, SWEEP_PERIOD_NANOS));
        this.sweeper = scheduler.scheduleAtFixedRate(this::sweep, period, period, TimeUnit.NANOSECONDS);
    }

    /** Fails the publishes whose confirm is overdue; the oldest wait first in every channel, so each sweep is short. */
    private void sweep() {
        long now = System.nanoTime();
        for (PooledChannel c : pool) {
            if (c != null) {
                c.expire(now);
            }
        }
    }

    /**
     * Publishes one message to a queue or a fanout exchange. {@code what} names it for errors, e.g. {@code a message of
     * topic 'orders'} or {@code a retry copy of message m-1}.
     */
    CompletableFuture<Void> publish(Route route, AMQP.BasicProperties properties, byte[] body, String what) {
        CompletableFuture<Void> result = new CompletableFuture<>();
        attempt(route, properties, body, what, 1, result);
        return result;
    }

    private void attempt(
            Route route,
            AMQP.BasicProperties properties,
            byte[] body,
            String what,
            int attempt,
            CompletableFuture<Void> result) {
        if (closed) {
            result.completeExceptionally(new PublishException(
                    "cannot publish " + what + " to " + route + ": the RabbitMQ broker connection is closed",
                    null,
                    false));
            return;
        }
        CompletableFuture<Void> confirmed;
        try {
            confirmed = channel(route).publish(route, properties, body);
        } catch (IOException | ShutdownSignalException | ChannelUnavailable e) {
            confirmed = CompletableFuture.failedFuture(new Lost(e));
        }
        confirmed.whenComplete((ok, failure) -> {
            if (failure == null) {
                result.complete(null);
            } else if (failure instanceof Refused refused && !refused.alone && attempt < attempts && !closed) {
                // Another publish on the channel may have been the one refused: try this one alone.
                log.debug(
                        "publishing {} to {}: its channel was closed by a refusal ({} {}); trying it alone",
                        what,
                        route,
                        refused.replyCode,
                        refused.replyText);
                completions.execute(() -> attemptAlone(route, properties, body, what, attempt + 1, result));
            } else if (failure instanceof Lost lost && attempt < attempts && !closed) {
                long delay = backoffMillis(attempt);
                log.debug(
                        "publishing {} to {} failed ({}); attempt {} of {} in {} ms",
                        what,
                        route,
                        lost.getCause(),
                        attempt + 1,
                        attempts,
                        delay);
                scheduler.schedule(
                        () -> completions.execute(() -> attempt(route, properties, body, what, attempt + 1, result)),
                        delay,
                        TimeUnit.MILLISECONDS);
            } else {
                result.completeExceptionally(describe(failure, route, what, attempt));
            }
        });
    }

    /**
     * Tries a publish that a refusal took down along with others alone, on a channel of its own, awaiting its confirm
     * before the next such publish: a refusal there is certainly its own. Only after a refusal, so a channel per try
     * costs little. Any other failure goes back to the ordinary attempts.
     */
    private void attemptAlone(
            Route route,
            AMQP.BasicProperties properties,
            byte[] body,
            String what,
            int attempt,
            CompletableFuture<Void> result) {
        @Nullable Exception failure;
        isolation.lock();
        try {
            failure = publishAlone(route, properties, body);
        } finally {
            isolation.unlock();
        }
        if (failure == null) {
            result.complete(null);
        } else if (failure instanceof Lost && attempt < attempts && !closed) {
            scheduler.schedule(
                    () -> completions.execute(() -> attempt(route, properties, body, what, attempt + 1, result)),
                    backoffMillis(attempt),
                    TimeUnit.MILLISECONDS);
        } else {
            result.completeExceptionally(describe(failure, route, what, attempt));
        }
    }

    private @Nullable Exception publishAlone(Route route, AMQP.BasicProperties properties, byte[] body) {
        if (closed) {
            return new Lost(new IOException("the broker connection is closing"));
        }
        Channel channel;
        try {
            channel = connection.createChannel();
        } catch (IOException | ShutdownSignalException e) {
            return new Lost(e);
        }
        if (channel == null) {
            return new Lost(
                    new IOException("RabbitMQ refused a new channel: the connection's channel limit is reached"));
        }
        AtomicReference<@Nullable Returned> returned = new AtomicReference<>();
        channel.addReturnListener(r -> returned.set(new Returned(r.getReplyCode(), r.getReplyText())));
        try {
            channel.confirmSelect();
            channel.basicPublish(route.exchange(), route.routingKey(), route.mandatory(), properties, body);
            if (!channel.waitForConfirms(Math.max(1, TimeUnit.NANOSECONDS.toMillis(confirmTimeoutNanos)))) {
                return new Nacked();
            }
            return returned.get();
        } catch (TimeoutException e) {
            return new ConfirmTimeout();
        } catch (ShutdownSignalException e) {
            return refusedOrLost(e);
        } catch (IOException e) {
            return e.getCause() instanceof ShutdownSignalException s ? refusedOrLost(s) : new Lost(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new Lost(e);
        } finally {
            RabbitTopology.closeQuietly(channel);
        }
    }

    private static Exception refusedOrLost(ShutdownSignalException cause) {
        AMQP.Channel.Close refusal = permanentRefusal(cause);
        return refusal == null ? new Lost(cause) : new Refused(refusal.getReplyCode(), refusal.getReplyText(), true);
    }

    /** Full-jitter exponential backoff: a random delay in [d/2, d] with d = 100 ms doubling per attempt, at most 2 s. */
    static long backoffMillis(int attempt) {
        long d = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS << Math.min(attempt - 1, 20));
        return d / 2 + ThreadLocalRandom.current().nextLong(d / 2 + 1);
    }

    private Throwable describe(Throwable failure, Route route, String what, int attempt) {
        return switch (failure) {
            case Returned r ->
                new TopologyException("RabbitMQ could not route " + what + " to " + route + " ("
                        + r.replyCode + " " + r.replyText + "): the queue does not exist. Declare the topic first with"
                        + " broker.topology().declare(topic)");
            case Nacked n ->
                new PublishException(
                        "RabbitMQ refused " + what + " for " + route + " (basic.nack): the broker could not"
                                + " store it, which points at a broker-side problem (see the broker's log); it was not"
                                + " published",
                        null,
                        true);
            case Refused r
            when !r.alone ->
                new PublishException(
                        "RabbitMQ closed the channel under " + what + " for " + route + ", refusing it or another"
                                + " publish on the same channel (" + r.replyCode + " " + r.replyText + "); it was not"
                                + " published. Publish it again (with publishAttempts above 1, shove tries it again"
                                + " alone by itself)",
                        null,
                        true);
            case Refused r
            when r.replyCode == AMQP.NOT_FOUND ->
                new TopologyException("RabbitMQ refused " + what + " for " + route + " (" + r.replyCode + " "
                        + r.replyText + "): the exchange does not exist. Declare the topic first with"
                        + " broker.topology().declare(topic)");
            case Refused r ->
                new PublishException(
                        "RabbitMQ refused " + what + " for " + route + " for good (" + r.replyCode + " "
                                + r.replyText + "); it was not published, and publishing it again would fail the"
                                + " same way. "
                                + (r.replyCode == AMQP.ACCESS_REFUSED
                                        ? "Grant the user write permission on the vhost (rabbitmqctl set_permissions)."
                                        : "Make the message fit the broker's rules: stay under its max_message_size"
                                                + " (or raise it in rabbitmq.conf), and give CC/BCC headers, which"
                                                + " RabbitMQ reads as routing keys, only as arrays or not at all."),
                        null,
                        false);
            case ConfirmTimeout t ->
                new PublishException(
                        "RabbitMQ did not confirm " + what + " for " + route + " within "
                                + DurationText.of(Duration.ofNanos(confirmTimeoutNanos)) + " (is the broker blocked by"
                                + " a memory or disk alarm?); it may or may not have been stored",
                        null,
                        true);
            case Lost l ->
                new PublishException(
                        "publishing " + what + " to " + route + " on RabbitMQ at " + brokerAddress
                                + " failed after " + attempt + " attempt(s): "
                                + RabbitTopology.describe(l.getCause())
                                + (closed ? "" : "; the connection recovers by itself, publish again later"),
                        l.getCause(),
                        true);
            default ->
                new PublishException("publishing " + what + " to " + route + " failed: " + failure, failure, false);
        };
    }

    /**
     * The channel for a queue (or exchange): always the same one while it is open, because RabbitMQ keeps the order
     * of messages only within a channel, and a sequenced topic's shard needs its publish order. Another open channel
     * stands in only when that one is down on its own; when the connection is down, nothing is open and the publish
     * backs off.
     */
    private PooledChannel channel(Route route) throws IOException, ChannelUnavailable {
        int n = pool.length;
        String key = route.isQueue() ? route.routingKey() : route.exchange();
        int home = Math.floorMod(key.hashCode(), n);
        for (int i = 0; i < n; i++) {
            int index = (home + i) % n;
            PooledChannel c = pool[index];
            if (c == null || c.dead) {
                c = replace(index);
            }
            if (c != null && c.channel.isOpen()) {
                return c;
            }
        }
        throw new ChannelUnavailable("the connection to RabbitMQ at " + brokerAddress + " is down (recovering)");
    }

    private synchronized @Nullable PooledChannel replace(int index) throws IOException {
        PooledChannel c = pool[index];
        if (c != null && !c.dead) {
            return c;
        }
        if (!connection.isOpen()) {
            return null;
        }
        Channel channel;
        try {
            channel = connection.createChannel();
        } catch (AlreadyClosedException e) {
            return null;
        }
        if (channel == null) {
            throw new IOException("RabbitMQ refused a new channel: the connection's channel limit is reached");
        }
        channel.confirmSelect();
        PooledChannel fresh = new PooledChannel(channel);
        pool[index] = fresh;
        return fresh;
    }

    @Override
    public void close() {
        closed = true;
        sweeper.cancel(false);
        for (PooledChannel c : pool) {
            if (c != null) {
                c.failAll(new Lost(new IOException("the broker connection is closing")));
            }
        }
    }

    // ---------------------------------------------------------------- failure kinds (internal, never escape)

    /** The channel or connection failed with the publish in flight: its fate is unknown, worth another attempt. */
    private static final class Lost extends Exception {
        private static final long serialVersionUID = 1L;

        Lost(Throwable cause) {
            super(cause.getMessage(), cause, false, false);
        }
    }

    private static final class Nacked extends Exception {
        private static final long serialVersionUID = 1L;

        Nacked() {
            super("nacked", null, false, false);
        }
    }

    private static final class Returned extends Exception {
        private static final long serialVersionUID = 1L;
        final int replyCode;
        final String replyText;

        Returned(int replyCode, String replyText) {
            super("returned", null, false, false);
            this.replyCode = replyCode;
            this.replyText = replyText;
        }
    }

    /**
     * The broker closed the channel with a channel error that no retry can fix (see the class comment). {@code alone}:
     * this publish was the only one awaiting its confirm on the channel, so it is the one refused.
     */
    private static final class Refused extends Exception {
        private static final long serialVersionUID = 1L;
        final int replyCode;
        final String replyText;
        final boolean alone;

        Refused(int replyCode, String replyText, boolean alone) {
            super("refused", null, false, false);
            this.replyCode = replyCode;
            this.replyText = replyText;
            this.alone = alone;
        }
    }

    /** The channel error of a broker that refuses a publish for good, or null for any other shutdown. */
    static AMQP.Channel.@Nullable Close permanentRefusal(ShutdownSignalException cause) {
        if (cause.isHardError()
                || cause.isInitiatedByApplication()
                || !(cause.getReason() instanceof AMQP.Channel.Close close)) {
            return null;
        }
        int code = close.getReplyCode();
        return code == AMQP.PRECONDITION_FAILED || code == AMQP.ACCESS_REFUSED || code == AMQP.NOT_FOUND ? close : null;
    }

    private static final class ConfirmTimeout extends Exception {
        private static final long serialVersionUID = 1L;

        ConfirmTimeout() {
            super("confirm timeout", null, false, false);
        }
    }

    private static final class ChannelUnavailable extends Exception {
        private static final long serialVersionUID = 1L;

        ChannelUnavailable(String message) {
            super(message, null, false, false);
        }
    }

    /** A publish waiting for its confirm. */
    private static final class Pending {
        final Route route;
        final @Nullable String messageId;
        final byte[] body;
        final long sentNanos = System.nanoTime();
        final CompletableFuture<Void> future = new CompletableFuture<>();

        @Nullable
        Returned returned;

        Pending(Route route, @Nullable String messageId, byte[] body) {
            this.route = route;
            this.messageId = messageId;
            this.body = body;
        }
    }

    /**
     * One confirm-mode channel and its publishes awaiting confirms, by sequence number. On an automatically recovering
     * connection the channel object survives a connection loss: its pending publishes fail as {@link Lost} (and are
     * retried elsewhere) and it comes back with confirms re-enabled. Only a channel closed by a channel-level error is
     * {@link #dead} and replaced.
     */
    private final class PooledChannel implements ConfirmListener, ReturnListener, ShutdownListener {
        final Channel channel;
        private final ReentrantLock lock = new ReentrantLock();
        private final TreeMap<Long, Pending> pending = new TreeMap<>();
        volatile boolean dead;

        PooledChannel(Channel channel) {
            this.channel = channel;
            channel.addConfirmListener(this);
            channel.addReturnListener(this);
            channel.addShutdownListener(this);
        }

        CompletableFuture<Void> publish(Route route, AMQP.BasicProperties properties, byte[] body) throws IOException {
            Pending p = new Pending(route, messageId(properties), body);
            long seq;
            lock.lock();
            try {
                seq = channel.getNextPublishSeqNo();
                pending.put(seq, p);
                try {
                    channel.basicPublish(route.exchange(), route.routingKey(), route.mandatory(), properties, body);
                } catch (IOException | RuntimeException e) {
                    pending.remove(seq);
                    throw e;
                }
            } finally {
                lock.unlock();
            }
            return p.future;
        }

        /**
         * Fails the publishes sent more than the confirm timeout before {@code now}. Skips a channel whose lock is
         * held: a publish blocked on the socket (a blocked connection) must not stall the timer thread.
         */
        void expire(long now) {
            List<Pending> overdue = new ArrayList<>();
            if (!lock.tryLock()) {
                return;
            }
            try {
                for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
                    Pending p = it.next();
                    if (now - p.sentNanos < confirmTimeoutNanos) {
                        break;
                    }
                    it.remove();
                    overdue.add(p);
                }
            } finally {
                lock.unlock();
            }
            complete(overdue, new ConfirmTimeout());
        }

        @Override
        public void handleAck(long seq, boolean multiple) {
            settle(seq, multiple, null);
        }

        @Override
        public void handleNack(long seq, boolean multiple) {
            settle(seq, multiple, new Nacked());
        }

        private void settle(long seq, boolean multiple, @Nullable Exception failure) {
            List<Pending> done = new ArrayList<>();
            lock.lock();
            try {
                if (multiple) {
                    SortedMap<Long, Pending> head = pending.headMap(seq, true);
                    done.addAll(head.values());
                    head.clear();
                } else {
                    Pending p = pending.remove(seq);
                    if (p != null) {
                        done.add(p);
                    }
                }
            } finally {
                lock.unlock();
            }
            if (failure != null) {
                complete(done, failure);
                return;
            }
            List<Pending> ok = new ArrayList<>(done.size());
            for (Pending p : done) {
                if (p.returned != null) {
                    complete(List.of(p), p.returned);
                } else {
                    ok.add(p);
                }
            }
            complete(ok, null);
        }

        /**
         * A mandatory message no queue took. The broker sends basic.return before the message's basic.ack on the same
         * channel, so the message is still pending: the earliest pending publish with the same routing key, id and body
         * not yet marked.
         */
        @Override
        public void handleReturn(
                int replyCode,
                String replyText,
                String exchange,
                String routingKey,
                AMQP.BasicProperties properties,
                byte[] body) {
            String id = messageId(properties);
            lock.lock();
            try {
                for (Pending p : pending.values()) {
                    if (p.returned == null
                            && p.route.exchange().equals(exchange)
                            && p.route.routingKey().equals(routingKey)
                            && Objects.equals(p.messageId, id)
                            && Arrays.equals(p.body, body)) {
                        p.returned = new Returned(replyCode, replyText);
                        return;
                    }
                }
            } finally {
                lock.unlock();
            }
            log.warn("RabbitMQ returned an unroutable message for queue '{}' that no publish awaits", routingKey);
        }

        @Override
        public void shutdownCompleted(ShutdownSignalException cause) {
            if (!cause.isHardError() || cause.isInitiatedByApplication()) {
                // A channel-level error (or our own close): this channel will not come back.
                dead = true;
                if (!cause.isInitiatedByApplication()) {
                    log.warn("a RabbitMQ publishing channel was closed by the broker: {}", cause.getMessage());
                }
            }
            AMQP.Channel.Close refusal = permanentRefusal(cause);
            if (refusal == null) {
                failAll(new Lost(cause));
                return;
            }
            List<Pending> all = drain();
            complete(all, new Refused(refusal.getReplyCode(), refusal.getReplyText(), all.size() == 1));
        }

        void failAll(Exception failure) {
            complete(drain(), failure);
        }

        private List<Pending> drain() {
            lock.lock();
            try {
                List<Pending> all = new ArrayList<>(pending.values());
                pending.clear();
                return all;
            } finally {
                lock.unlock();
            }
        }

        private void complete(List<Pending> done, @Nullable Exception failure) {
            if (done.isEmpty()) {
                return;
            }
            Runnable task = () -> {
                for (Iterator<Pending> it = done.iterator(); it.hasNext(); ) {
                    Pending p = it.next();
                    if (failure == null) {
                        p.future.complete(null);
                    } else {
                        p.future.completeExceptionally(failure);
                    }
                }
            };
            try {
                completions.execute(task);
            } catch (RuntimeException e) {
                task.run(); // the executor is shut down: complete here rather than never
            }
        }
    }

    private static @Nullable String messageId(AMQP.BasicProperties properties) {
        Map<String, Object> headers = properties.getHeaders();
        Object id = headers == null ? null : headers.get(ShoveHeaders.MESSAGE_ID);
        return id == null ? properties.getMessageId() : AmqpMessages.asString(id);
    }
}
