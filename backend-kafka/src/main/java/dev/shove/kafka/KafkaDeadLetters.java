package dev.shove.kafka;

import dev.shove.BrokerUnavailableException;
import dev.shove.ShoveException;
import dev.shove.kafka.KafkaTopology.GroupPosition;
import dev.shove.spi.DeadLetterStore;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.common.errors.RetriableException;

/**
 * A topic's dead-letter topic as one group's dead-letter consumer (Kafka group {@code {group}-dlq}) sees it, for the
 * dead-letter tools: the dead letters are the records past the group's committed offsets. Reading is in place (a
 * {@link DeadLetterScan} reads with a consumer of its own that joins no group); removing commits the group past the
 * removed records. Thread-safe; each scan is for one thread.
 */
final class KafkaDeadLetters implements DeadLetterStore {
    private final KafkaTransport transport;
    private final String queue;
    private final String group;
    private final String groupId;
    private final boolean newGroupsFromEnd;

    KafkaDeadLetters(KafkaTransport transport, String queue, String group, String groupId) {
        this.transport = transport;
        this.queue = queue;
        this.group = group;
        this.groupId = groupId;
        // A partition the group has no offset in starts where the dead-letter consumer would: its auto.offset.reset.
        Object reset = transport.consumerProperties(groupId, groupId, 1).get("auto.offset.reset");
        this.newGroupsFromEnd = "latest".equals(reset);
    }

    @Override
    public String queue() {
        return queue;
    }

    /**
     * The dead letters past the group's committed offsets. Transactional ({@link KafkaConfig#transactional()}): the
     * commit markers of the transactions take offsets too, so the records are counted by reading them (a pass of
     * {@link #scan()}); otherwise from the offsets alone.
     */
    @Override
    public long count() {
        if (transport.config().transactional()) {
            long read = 0;
            try (Scan pass = scan()) {
                for (List<?> page = pass.next(500); !page.isEmpty(); page = pass.next(500)) {
                    read += page.size();
                }
            }
            return read;
        }
        long count = 0;
        for (GroupPosition p : positions()) {
            count += p.unread();
        }
        return count;
    }

    @Override
    public boolean readsInPlace() {
        return true;
    }

    @Override
    public Scan scan() {
        return new DeadLetterScan(transport, queue, group, groupId, positions());
    }

    /** The group's position in every partition of the dead-letter topic, fresh from the broker. */
    private List<GroupPosition> positions() {
        transport.topology().requireExists(queue);
        try {
            return transport.topology().positions(queue, groupId, newGroupsFromEnd);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException(
                    "interrupted while reading the offsets of group '" + groupId + "' in '" + queue + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw failure("reading the offsets of group '" + groupId + "' in '" + queue + "'", cause);
        }
    }

    /**
     * A Kafka failure as shove's: {@link BrokerUnavailableException} when trying again may help (a timeout, a
     * retriable error), else a {@link ShoveException} (not authorised, for one).
     */
    static ShoveException failure(String what, Throwable cause) {
        String message = what + " failed on Kafka: " + cause;
        if (cause instanceof RetriableException
                || cause instanceof TimeoutException
                || cause instanceof org.apache.kafka.common.errors.InterruptException) {
            return new BrokerUnavailableException(message, cause);
        }
        return new ShoveException(message, cause);
    }

    @Override
    public String toString() {
        return "KafkaDeadLetters[" + queue + ", group=" + groupId + "]";
    }
}
