package dev.shove.nats;

import dev.shove.Position;
import dev.shove.ShoveException;
import dev.shove.TopologyException;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import io.nats.client.JetStreamApiException;
import io.nats.client.JetStreamManagement;
import io.nats.client.api.ConsumerInfo;
import io.nats.client.api.MessageInfo;
import io.nats.client.api.StreamState;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/**
 * A topic's dead-letter stream as one group's dead-letter consumer (durable consumer {@code G} on stream {@code D},
 * see {@link NatsTopology}) sees it, for the dead-letter tools. Thread-safe; each scan is for one thread.
 *
 * <ul>
 *   <li>count: the messages that consumer has not acknowledged ({@code num_pending + num_ack_pending}); while the
 *       group has no dead-letter consumer yet, every message of the stream (the consumer, once created, reads them
 *       all).
 *   <li>scan: reads by stream sequence ({@code STREAM.MSG.GET} with {@code next_by_subj}), from past the consumer's
 *       acknowledgement floor (or the stream's start) up to the last sequence when the pass began. A get takes
 *       nothing: the letters stay where they are, for the group's consumer and for everyone else, and no consumer is
 *       created for the pass. One request per letter.
 *   <li>remove: deletes the messages from the stream by sequence, so they are gone for every reader of the stream.
 * </ul>
 *
 * <p>JetStream keeps only a floor and a count of a consumer's acknowledgements, not which messages above the floor
 * were acknowledged: while the group's dead-letter consumer runs and acknowledges out of order, a scan may also read
 * letters it has acknowledged already (they are still in the stream, which has limits retention).
 */
final class NatsDeadLetters implements DeadLetterStore {
    /** JetStream's error code for "no message found". */
    static final int NO_MESSAGE_FOUND = 10037;

    private final JetStreamManagement jsm;
    private final NatsTopology topology;
    private final String topic;
    private final String queue;
    private final String stream;
    private final String subject;
    private final String consumer;
    private final String what;

    NatsDeadLetters(JetStreamManagement jsm, NatsTopology topology, String topic, String queue, String group) {
        this.jsm = jsm;
        this.topology = topology;
        this.topic = topic;
        this.queue = queue;
        this.stream = NatsTopology.stream(queue);
        this.subject = NatsTopology.subject(queue);
        this.consumer = NatsTopology.mainConsumer(group);
        this.what = "dead-letter queue '" + queue + "' of topic '" + topic + "' (group '" + group + "')";
    }

    @Override
    public String queue() {
        return queue;
    }

    @Override
    public long count() {
        ConsumerInfo info = topology.consumerInfo(stream, consumer, what);
        if (info != null) {
            return info.getNumPending() + info.getNumAckPending();
        }
        return state().getMsgCount();
    }

    @Override
    public boolean readsInPlace() {
        return true;
    }

    @Override
    public Scan scan() {
        ConsumerInfo info = topology.consumerInfo(stream, consumer, what);
        long from = info == null ? 1 : info.getAckFloor().getStreamSequence() + 1;
        return new LetterScan(from, state().getLastSequence());
    }

    private StreamState state() {
        try {
            return jsm.getStreamInfo(stream).getStreamState();
        } catch (JetStreamApiException e) {
            throw e.getApiErrorCode() == NatsTopology.STREAM_NOT_FOUND
                    ? missing()
                    : new ShoveException("cannot read stream '" + stream + "' of " + what + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw NatsTopology.unavailable("reading stream '" + stream + "' of " + what, e);
        }
    }

    private TopologyException missing() {
        return new TopologyException("stream '" + stream + "' of " + what + " does not exist on the NATS server;"
                + " declare topic '" + topic + "' first with broker.topology().declare(topic)");
    }

    /** One pass by stream sequence, from {@code next} up to {@code end}; nothing to release when it ends. */
    private final class LetterScan implements Scan {
        private final long end;
        private long next;
        private boolean closed;

        LetterScan(long from, long end) {
            this.next = Math.max(1, from);
            this.end = end;
        }

        @Override
        public List<Delivery> next(int max) {
            checkOpen();
            if (max < 1) {
                throw new IllegalArgumentException("max must be at least 1, was " + max);
            }
            List<Delivery> page = new ArrayList<>(Math.min(max, 256));
            while (page.size() < max && next <= end) {
                MessageInfo m = nextStored(next);
                if (m == null || m.getSeq() > end) {
                    next = end + 1;
                    break;
                }
                page.add(new Letter(
                        stream,
                        queue,
                        m.getSeq(),
                        m.getData() == null ? new byte[0] : m.getData(),
                        NatsMessages.fromNats(m.getHeaders()),
                        m.getTime() == null ? -1 : m.getTime().toInstant().toEpochMilli()));
                next = m.getSeq() + 1;
            }
            return page;
        }

        /** The first message of the dead-letter subject at or after {@code sequence}, or null when there is none. */
        private @Nullable MessageInfo nextStored(long sequence) {
            try {
                return jsm.getNextMessage(stream, sequence, subject);
            } catch (JetStreamApiException e) {
                if (e.getApiErrorCode() == NO_MESSAGE_FOUND) {
                    return null;
                }
                if (e.getApiErrorCode() == NatsTopology.STREAM_NOT_FOUND) {
                    throw missing();
                }
                throw new ShoveException(
                        "cannot read sequence " + sequence + " of stream '" + stream + "' (" + what + "): "
                                + e.getMessage(),
                        e);
            } catch (IOException e) {
                throw NatsTopology.unavailable("reading stream '" + stream + "' of " + what, e);
            }
        }

        @Override
        public void remove(List<Delivery> letters) {
            checkOpen();
            for (Delivery d : letters) {
                if (!(d instanceof Letter letter) || !letter.stream().equals(stream)) {
                    throw new IllegalArgumentException(d + " was not read from " + what);
                }
                try {
                    // no secure erase (overwriting the bytes on disk is slower): the message is gone either way
                    jsm.deleteMessage(stream, letter.sequence(), false);
                } catch (JetStreamApiException e) {
                    if (e.getApiErrorCode() != NO_MESSAGE_FOUND) { // deleted already: gone, as asked
                        throw new ShoveException(
                                "JetStream refused to delete sequence " + letter.sequence() + " of stream '" + stream
                                        + "' (" + what + "): " + e.getMessage()
                                        + "; check the stream's deny_delete setting and the account's permissions",
                                e);
                    }
                } catch (IOException e) {
                    throw NatsTopology.unavailable(
                            "deleting sequence " + letter.sequence() + " of stream '" + stream + "' (" + what + ")", e);
                }
            }
        }

        private void checkOpen() {
            if (closed) {
                throw new IllegalStateException("this scan of " + what + " is closed");
            }
        }

        @Override
        public void close() {
            closed = true;
        }
    }

    /** A dead letter as a scan reads it: a stored message, delivered to no one by the read. */
    private record Letter(
            String stream, String queue, long sequence, byte[] payload, Map<String, String> headers, long timestampMs)
            implements Delivery {

        @Override
        public String deliveryId() {
            return stream + ":" + sequence;
        }

        @Override
        public long offset() {
            return sequence;
        }

        @Override
        public @Nullable Position position() {
            return new Position.Captured(queue, -1, sequence);
        }

        @Override
        public String toString() {
            return "dead letter " + deliveryId();
        }
    }
}
