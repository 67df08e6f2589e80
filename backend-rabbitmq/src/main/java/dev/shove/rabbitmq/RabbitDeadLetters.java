package dev.shove.rabbitmq;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.Channel;
import com.rabbitmq.client.GetResponse;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.recovery.AutorecoveringChannel;
import dev.shove.BrokerUnavailableException;
import dev.shove.ShoveException;
import dev.shove.TopologyException;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Date;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeoutException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A topic's dead-letter queue for the dead-letter tools. One queue whatever the group: its consumers compete for it,
 * so every group sees the same dead letters. Counting is a passive {@code queue.declare} (the broker's current figure,
 * where the management API's lags by seconds). A queue cannot be read in place, so a {@link Scan} takes what it reads
 * with {@code basic.get} and no auto-ack on a channel of its own, acknowledges what it removes, and gives back the rest
 * by closing that channel: RabbitMQ then requeues them, in their original positions where it can, flagged {@code
 * redelivered}.
 *
 * <p>A quorum queue takes back the letters of a closed channel asynchronously: a count read right after a pass ended
 * could miss them (it read 0 for a moment on RabbitMQ 3.10). So on quorum queues a pass that held letters waits, when
 * it ends, until the queue's count shows them again (at most {@link #RETURN_WAIT}; a consumer of the DLQ may take
 * them meanwhile).
 *
 * <p>Thread-safe; each scan is used by one thread at a time.
 */
final class RabbitDeadLetters implements DeadLetterStore {
    private static final Logger log = LoggerFactory.getLogger(RabbitDeadLetters.class);

    /** What a failed pass says about the letters it held. */
    private static final String NOTHING_LOST = ". Nothing is lost: RabbitMQ put every dead letter the pass held and"
            + " had not removed back in the queue; run it again";

    /** What a failed removal says: its acknowledgements may or may not have reached the broker. */
    private static final String MAYBE_REMOVED = ". The letters of this removal may or may not be gone; nothing is lost:"
            + " RabbitMQ put every dead letter the pass held and had not removed back in the queue; run it again";

    /** On quorum queues, the longest a pass's end waits for the queue to count the letters it gave back. */
    static final Duration RETURN_WAIT = Duration.ofSeconds(2);

    private final RabbitMqTransport transport;
    private final String topic;
    private final String queue;
    private final boolean quorum;

    RabbitDeadLetters(RabbitMqTransport transport, String topic, String queue, boolean quorum) {
        this.transport = transport;
        this.topic = topic;
        this.queue = queue;
        this.quorum = quorum;
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public long count() {
        Channel channel = transport.openChannel("counting dead-letter queue '" + queue + "'");
        try {
            return channel.queueDeclarePassive(queue).getMessageCount();
        } catch (IOException | ShutdownSignalException e) {
            throw failure("counting the dead letters in", e, "");
        } finally {
            RabbitTopology.closeQuietly(channel);
        }
    }

    @Override
    public boolean readsInPlace() {
        return false;
    }

    @Override
    public Scan scan() {
        Channel channel = transport.openChannel("reading dead-letter queue '" + queue + "'");
        try {
            return new RabbitScan(channel);
        } catch (IOException | ShutdownSignalException e) {
            RabbitTopology.closeQuietly(channel);
            throw failure("reading the dead letters in", e, "");
        }
    }

    private ShoveException failure(String doing, Exception e, String consequence) {
        return failureOf(doing + " dead-letter queue '" + queue + "' of topic '" + topic + "'", e, consequence);
    }

    /**
     * A failed operation on a dead-letter queue ({@code what}) in words, with what it means for the letters a pass
     * held ({@code consequence}): a missing queue or a refused permission is a {@link TopologyException}, anything
     * else (the connection or channel lost) a {@link BrokerUnavailableException}. A queue that is gone took its
     * letters with it, so nothing is said about them.
     */
    static ShoveException failureOf(String what, Exception e, String consequence) {
        AMQP.Channel.@Nullable Close close = RabbitTopology.channelClose(e);
        if (close != null && close.getReplyCode() == AMQP.NOT_FOUND) {
            return new TopologyException(what + " failed: it does not exist on RabbitMQ (" + close.getReplyText()
                    + "); declare the topic first with broker.topology().declare(topic)");
        }
        if (close != null && close.getReplyCode() == AMQP.ACCESS_REFUSED) {
            return new TopologyException(what + " failed: RabbitMQ refused it (" + close.getReplyText()
                    + "); give the user 'read' permission on the queue" + consequence);
        }
        return new BrokerUnavailableException(what + " failed: " + RabbitTopology.describe(e) + consequence, e);
    }

    /**
     * One pass: {@code basic.get} up to the number of messages the queue held when it began, so that it ends while
     * new dead letters arrive and never reads one it left unacknowledged twice (those stay on this channel until it
     * closes). Delivery tags belong to this channel only: once the channel has gone (a channel error, a lost
     * connection), the broker has requeued every letter the pass held, and the pass refuses to go on. That includes
     * the channel the client's connection recovery reopens in its place: tags start again there, so an old tag would
     * be refused (closing that channel too) or, worse, acknowledge another letter.
     */
    private final class RabbitScan implements Scan {
        private final Channel channel;
        private final Object generation;
        private final long bound;
        private final AckLedger held = new AckLedger();
        private long read;
        private boolean closed;
        private volatile @Nullable ShutdownSignalException lost;

        RabbitScan(Channel channel) throws IOException {
            this.channel = channel;
            this.generation = generationOf(channel);
            channel.addShutdownListener(cause -> lost = cause);
            this.bound = channel.queueDeclarePassive(queue).getMessageCount();
        }

        @Override
        public List<Delivery> next(int max) {
            if (max < 1) {
                throw new IllegalArgumentException("max must be at least 1, was " + max);
            }
            checkUsable("reading");
            List<Delivery> page = new ArrayList<>((int) Math.min(max, bound - read));
            try {
                while (page.size() < max && read < bound) {
                    GetResponse response = channel.basicGet(queue, false);
                    checkUsable("reading");
                    if (response == null) {
                        read = bound; // the queue is empty: a consumer took the rest
                        break;
                    }
                    read++;
                    long tag = response.getEnvelope().getDeliveryTag();
                    held.delivered(tag);
                    page.add(new Letter(this, queue, tag, response, quorum));
                }
            } catch (IOException | ShutdownSignalException e) {
                throw failure("reading", e, NOTHING_LOST);
            }
            return page;
        }

        @Override
        public void remove(List<Delivery> letters) {
            List<Long> tags = new ArrayList<>(letters.size());
            for (Delivery d : letters) {
                if (!(d instanceof Letter letter) || letter.scan != this) {
                    throw new IllegalArgumentException("dead letter " + d.deliveryId()
                            + " was not read by this pass over '" + queue + "'; nothing was removed");
                }
                tags.add(letter.tag);
            }
            String doing =
                    "removing " + letters.size() + (letters.size() == 1 ? " dead letter from" : " dead letters from");
            checkUsable(doing);
            // Tags this pass no longer holds were removed before: acknowledging one again would close the channel.
            AckLedger.Plan plan = held.plan(tags, List.of());
            if (plan.isEmpty()) {
                return;
            }
            try {
                if (plan.multipleUpTo() > 0) {
                    channel.basicAck(plan.multipleUpTo(), true);
                }
                for (long tag : plan.singles()) {
                    channel.basicAck(tag, false);
                }
                // Acks have no reply. The broker handles a channel's frames in order, so once this round trip on the
                // same channel returns, the acks before it are applied.
                channel.queueDeclarePassive(queue);
            } catch (IOException | ShutdownSignalException e) {
                throw failure(doing, e, MAYBE_REMOVED);
            }
            // Unless recovery swapped the channel under the acks, which then went to a channel that never held them.
            checkNotReplaced(doing, MAYBE_REMOVED);
        }

        /** Throws unless this pass is open and still on the channel it began on, which has not gone. */
        private void checkUsable(String doing) {
            if (closed) {
                throw new IllegalStateException("this pass over dead-letter queue '" + queue + "' is closed");
            }
            ShutdownSignalException cause = lost;
            if (cause != null) {
                throw lostChannel(doing, RabbitTopology.describe(cause), NOTHING_LOST, cause);
            }
            checkNotReplaced(doing, NOTHING_LOST);
        }

        /** Throws if connection recovery has replaced the channel: this pass's delivery tags mean nothing on it. */
        private void checkNotReplaced(String doing, String consequence) {
            if (generationOf(channel) != generation) {
                throw lostChannel(doing, "the connection was lost and recovered", consequence, null);
            }
        }

        private BrokerUnavailableException lostChannel(
                String doing, String why, String consequence, @Nullable Throwable cause) {
            return new BrokerUnavailableException(
                    doing + " dead-letter queue '" + queue + "' of topic '" + topic + "' failed: the pass lost its"
                            + " channel (" + why + ")" + consequence,
                    cause);
        }

        @Override
        public void close() {
            if (closed) {
                return;
            }
            closed = true;
            int givenBack = held.outstanding();
            long expected = -1;
            if (quorum && givenBack > 0 && lost == null && channel.isOpen()) {
                try {
                    expected = channel.queueDeclarePassive(queue).getMessageCount() + (long) givenBack;
                } catch (IOException | RuntimeException e) {
                    log.debug("counting '{}' before the end of a pass failed: {}", queue, e.toString());
                }
            }
            // Closing the channel is what gives the letters back: the broker requeues every unacknowledged one. A
            // channel that is down is only dropped from the connection's recovery.
            try {
                if (channel.isOpen()) {
                    channel.close();
                } else {
                    channel.abort();
                }
            } catch (IOException | TimeoutException | RuntimeException e) {
                log.debug("closing the channel of a pass over '{}' failed: {}", queue, e.toString());
            }
            if (expected >= 0) {
                awaitCount(expected);
            }
        }

        /** Waits (bounded) until the quorum queue counts at least {@code expected} ready letters again. */
        private void awaitCount(long expected) {
            long deadline = System.nanoTime() + RETURN_WAIT.toNanos();
            Channel counting;
            try {
                counting = transport.openChannel("counting dead-letter queue '" + queue + "'");
            } catch (RuntimeException e) {
                return;
            }
            try {
                while (counting.queueDeclarePassive(queue).getMessageCount() < expected) {
                    if (System.nanoTime() - deadline >= 0) {
                        log.debug("dead-letter queue '{}' counts fewer than {} letters after a pass", queue, expected);
                        return;
                    }
                    Thread.sleep(5);
                }
            } catch (IOException | RuntimeException e) {
                log.debug("counting '{}' after a pass failed: {}", queue, e.toString());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } finally {
                RabbitTopology.closeQuietly(counting);
            }
        }
    }

    /** The object behind a channel that a connection recovery replaces (the channel itself if it never recovers). */
    private static Object generationOf(Channel channel) {
        return channel instanceof AutorecoveringChannel recovering ? recovering.getDelegate() : channel;
    }

    /** A dead letter as a scan read it; its delivery tag is the scan channel's. */
    private static final class Letter implements Delivery {
        final RabbitScan scan;
        final long tag;
        private final String queue;
        private final byte[] body;
        private final Map<String, String> headers;
        private final boolean redelivered;
        private final int deliveryCount;
        private final long timestampMs;

        Letter(RabbitScan scan, String queue, long tag, GetResponse response, boolean quorum) {
            this.scan = scan;
            this.tag = tag;
            this.queue = queue;
            this.body = response.getBody();
            this.headers = AmqpMessages.toStrings(response.getProps().getHeaders());
            this.redelivered = response.getEnvelope().isRedeliver();
            this.deliveryCount = AmqpMessages.deliveryCount(response.getProps().getHeaders(), quorum);
            Date timestamp = response.getProps().getTimestamp();
            this.timestampMs = timestamp != null ? timestamp.getTime() : -1;
        }

        @Override
        public byte[] payload() {
            return body;
        }

        @Override
        public Map<String, String> headers() {
            return headers;
        }

        @Override
        public String deliveryId() {
            return queue + "#" + tag + "@dead-letter-scan";
        }

        @Override
        public String queue() {
            return queue;
        }

        @Override
        public boolean redelivered() {
            return redelivered;
        }

        @Override
        public int deliveryCount() {
            return deliveryCount;
        }

        @Override
        public long timestampMs() {
            return timestampMs;
        }

        @Override
        public String toString() {
            return "Letter[" + deliveryId() + "]";
        }
    }
}
