package dev.shove.kafka;

import dev.shove.BrokerUnavailableException;
import dev.shove.Position;
import dev.shove.ShoveException;
import dev.shove.kafka.KafkaTopology.GroupPosition;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import dev.shove.spi.DurationText;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.errors.StaleMemberEpochException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pass of the dead-letter tools over a Kafka dead-letter topic, as one Kafka group sees it: a {@code
 * KafkaConsumer} of its own, assigned one partition at a time (it joins no group), reads each partition from the
 * group's position up to the end offset it had when the pass began; the partitions one after another, each in offset
 * order. Used by one thread at a time, like the {@link DeadLetterStore.Scan} it is.
 *
 * <p>Why removing re-appends: a partition is an append-only log, and all a group keeps of what it consumed is one
 * committed offset per partition, so a record leaves the group's view only when the group commits past it, and every
 * record before it goes too. {@link #remove} therefore first appends again, to the end of the same partition, each
 * record before the last removed one that is not removed (same key, value, headers and timestamp; in their order;
 * acknowledged by the broker), and only then commits the offset after the last removed record. Every kept dead letter
 * is at or past the committed offset at every moment: a failure in between leaves at worst a kept letter twice, never
 * one lost. The re-appended copies lie past the end this pass reads to, so it does not read them again.
 *
 * <p>Kafka takes offsets from a client outside a group only while the group has no members, so a removal refuses to
 * run while the group's dead-letter consumer runs.
 */
final class DeadLetterScan implements DeadLetterStore.Scan {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterScan.class);

    private static final Duration POLL = Duration.ofMillis(200);

    private final KafkaTransport transport;
    private final String queue;
    private final String group;
    private final String groupId;
    private final Duration apiTimeout;
    /** The partitions with dead letters when the pass began, in partition order. */
    private final List<Part> parts = new ArrayList<>();

    private final KafkaConsumer<byte[], byte[]> consumer;
    /** Records of the current partition fetched and not yet returned, in offset order. */
    private final ArrayDeque<ConsumerRecord<byte[], byte[]>> fetched = new ArrayDeque<>();
    /** The index in {@link #parts} of the partition being read; -1 before the first. */
    private int current = -1;
    /** The offset to fetch next in the current partition. */
    private long fetchFrom;

    private boolean closed;

    DeadLetterScan(
            KafkaTransport transport, String queue, String group, String groupId, List<GroupPosition> positions) {
        this.transport = transport;
        this.queue = queue;
        this.group = group;
        this.groupId = groupId;
        this.apiTimeout = transport.config().apiTimeout();
        for (GroupPosition p : positions) {
            if (p.unread() > 0) {
                parts.add(new Part(p));
            }
        }
        Map<String, Object> properties =
                transport.consumerProperties(groupId, transport.clientId("dlq-scan-" + queue), 500);
        // Positions are always set by seek; one past the log start can only mean retention deleted the rest.
        properties.put("auto.offset.reset", "earliest");
        // The group id is only for committing: a static member id would have the commit checked as that member's.
        properties.remove("group.instance.id");
        try {
            this.consumer = new KafkaConsumer<>(properties);
        } catch (KafkaException e) {
            throw KafkaDeadLetters.failure("creating a consumer to read '" + queue + "'", e);
        }
    }

    @Override
    public List<Delivery> next(int max) {
        checkOpen();
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, was " + max);
        }
        List<Delivery> page = new ArrayList<>(Math.min(max, 500));
        try {
            while (page.size() < max) {
                ConsumerRecord<byte[], byte[]> r = fetched.pollFirst();
                if (r != null) {
                    parts.get(current).returnedUpTo = r.offset() + 1;
                    page.add(new Letter(r));
                } else if (!fetch()) {
                    break;
                }
            }
        } catch (KafkaException e) {
            throw KafkaDeadLetters.failure("reading dead letters of '" + queue + "'", e);
        }
        return page;
    }

    /**
     * Fetches more records of the current partition, moving on to the next partition once one is read up to its end;
     * false when every partition is.
     */
    private boolean fetch() {
        while (true) {
            if (current >= parts.size()) {
                return false;
            }
            if (current < 0 || fetchFrom >= parts.get(current).end) {
                current++;
                if (current < parts.size()) {
                    fetchFrom = parts.get(current).next;
                    readFrom(parts.get(current).tp, fetchFrom);
                }
                continue;
            }
            Part part = parts.get(current);
            fetchFrom = pollOnce(part.tp, fetchFrom, part.end, fetched::add);
            if (!fetched.isEmpty()) {
                return true;
            }
        }
    }

    /**
     * Polls the assigned partition {@code tp}, positioned at {@code from}, until its position moves on, and hands
     * the records below {@code end} to {@code sink}; returns the new position. Throws when it does not move within
     * the API timeout.
     */
    private long pollOnce(TopicPartition tp, long from, long end, Consumer<ConsumerRecord<byte[], byte[]>> sink) {
        long deadline = System.nanoTime() + apiTimeout.toNanos();
        while (true) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(POLL).records(tp)) {
                if (r.offset() >= from && r.offset() < end) {
                    sink.accept(r);
                }
            }
            long position = consumer.position(tp, apiTimeout);
            if (position > from) {
                return position;
            }
            if (System.nanoTime() - deadline > 0) {
                throw new BrokerUnavailableException("reading partition " + tp.partition() + " of '" + queue
                        + "' at offset " + from + " returned nothing within " + DurationText.of(apiTimeout)
                        + "; check that the broker is up and the partition has a leader");
            }
        }
    }

    private void readFrom(TopicPartition tp, long offset) {
        consumer.assign(List.of(tp));
        consumer.seek(tp, offset);
    }

    @Override
    public void remove(List<Delivery> letters) {
        checkOpen();
        if (letters.isEmpty()) {
            return;
        }
        TreeMap<Integer, NavigableSet<Long>> removed = new TreeMap<>();
        for (Delivery d : letters) {
            Part part = d instanceof Letter l && l.record.topic().equals(queue) ? part(l.partition()) : null;
            if (part == null || d.offset() < part.next || d.offset() >= part.returnedUpTo) {
                throw new IllegalArgumentException("dead letter " + d.deliveryId() + " was not read by this scan of '"
                        + queue + "', or is removed already");
            }
            removed.computeIfAbsent(part.tp.partition(), p -> new TreeSet<>()).add(d.offset());
        }
        List<CompletableFuture<Void>> appends = new ArrayList<>();
        Map<TopicPartition, OffsetAndMetadata> commits = new HashMap<>();
        boolean reread = false;
        try {
            requireNoMembers();
            requireUnmoved(removed);
            for (Map.Entry<Integer, NavigableSet<Long>> e : removed.entrySet()) {
                Part part = parts.get(indexOf(e.getKey()));
                long last = e.getValue().last();
                if (e.getValue().size() < last - part.next + 1) {
                    reread = true;
                    appendKept(part, e.getValue(), appends);
                }
                commits.put(part.tp, new OffsetAndMetadata(last + 1));
            }
            awaitAppends(appends);
        } catch (KafkaException e) {
            throw notRemoved(KafkaDeadLetters.failure("removing dead letters from '" + queue + "'", e), appends.size());
        } catch (BrokerUnavailableException e) {
            throw notRemoved(e, appends.size());
        } finally {
            if (reread && current >= 0 && current < parts.size()) {
                readFrom(parts.get(current).tp, fetchFrom); // where the pass was before it re-read
            }
        }
        commit(commits, appends.size());
        for (Map.Entry<TopicPartition, OffsetAndMetadata> c : commits.entrySet()) {
            Part part = parts.get(indexOf(c.getKey().partition()));
            part.next = c.getValue().offset();
            part.committed = c.getValue().offset();
        }
        if (!appends.isEmpty()) {
            log.info(
                    "re-appended {} dead letters of '{}' kept before removed ones, for group '{}'",
                    appends.size(),
                    queue,
                    groupId);
        }
    }

    /** The refusal Kafka gives a commit from outside a non-empty group, checked first so nothing is appended. */
    private void requireNoMembers() {
        int members;
        try {
            members = transport.topology().members(groupId);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException("interrupted while describing group '" + groupId + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw KafkaDeadLetters.failure("describing group '" + groupId + "'", cause);
        }
        if (members > 0) {
            throw activeMembers(members == 1 ? "1 member" : members + " members", 0, null);
        }
    }

    /** Refuses a removal when the group committed since this pass read its position (a dead-letter consumer ran). */
    private void requireUnmoved(Map<Integer, NavigableSet<Long>> removed) {
        List<TopicPartition> tps = new ArrayList<>();
        removed.keySet().forEach(p -> tps.add(new TopicPartition(queue, p)));
        Map<TopicPartition, OffsetAndMetadata> now = consumer.committed(new HashSet<>(tps), apiTimeout);
        for (TopicPartition tp : tps) {
            OffsetAndMetadata c = now.get(tp);
            Long offset = c == null ? null : c.offset();
            Long expected = part(tp.partition()).committed;
            if (!Objects.equals(offset, expected)) {
                throw new IllegalStateException(("group '%s' moved in partition %d of '%s' (committed offset %s, was"
                                + " %s when this scan read it): its dead-letter consumer ran meanwhile. Nothing was"
                                + " removed; run the replay or purge again")
                        .formatted(groupId, tp.partition(), queue, offset, expected));
            }
        }
    }

    /**
     * Re-reads {@code part} from the group's position up to its last removed record and appends again every record
     * there that is not removed, adding the acknowledgements to {@code appends}.
     */
    private void appendKept(Part part, NavigableSet<Long> removed, List<CompletableFuture<Void>> appends) {
        long last = removed.last();
        long from = part.next;
        readFrom(part.tp, from);
        while (from < last) {
            from = pollOnce(part.tp, from, last, r -> {
                if (!removed.contains(r.offset())) {
                    appends.add(transport.append(new ProducerRecord<>(
                            queue,
                            r.partition(),
                            r.timestamp() >= 0 ? r.timestamp() : null,
                            r.key(),
                            r.value(),
                            new RecordHeaders(r.headers().toArray()))));
                }
            });
        }
    }

    /** Waits for the re-appended records; a failure here leaves every dead letter in place. */
    private void awaitAppends(List<CompletableFuture<Void>> appends) {
        long deadline = System.nanoTime()
                + transport.config().deliveryTimeout().plus(apiTimeout).toNanos();
        try {
            for (CompletableFuture<Void> a : appends) {
                a.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BrokerUnavailableException(
                    "interrupted while appending again dead letters of '" + queue + "'", e);
        } catch (ExecutionException | TimeoutException e) {
            Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
            throw KafkaDeadLetters.failure(
                    "appending again the dead letters of '" + queue + "' kept before removed ones", cause);
        }
    }

    /**
     * Commits past the removed records. A refusal because the group has members is the error of {@link
     * #requireNoMembers} (a member joined since); a commit that timed out may have been applied or not. Package-private
     * so a test can commit with a member that joined after the check.
     */
    void commit(Map<TopicPartition, OffsetAndMetadata> commits, int appended) {
        try {
            consumer.commitSync(commits, apiTimeout);
        } catch (CommitFailedException
                | UnknownMemberIdException
                | IllegalGenerationException
                | RebalanceInProgressException
                | StaleMemberEpochException e) {
            throw activeMembers("it refused the commit from outside the group", appended, e);
        } catch (org.apache.kafka.common.errors.TimeoutException | InterruptException e) {
            throw new BrokerUnavailableException(
                    "committing group '" + groupId + "' past removed dead letters of '" + queue + "' did not finish"
                            + " (" + e + "); the removal may or may not have taken effect: browse the dead letters"
                            + " to see which are left" + twice(appended),
                    e);
        } catch (KafkaException e) {
            throw notRemoved(
                    KafkaDeadLetters.failure("committing group '" + groupId + "' past removed dead letters", e),
                    appended);
        }
    }

    private IllegalStateException activeMembers(String members, int appended, @Nullable Throwable cause) {
        String message = ("cannot remove dead letters from '%s': Kafka group '%s' has active members (%s): the"
                        + " dead-letter consumer of group '%s' runs, and Kafka takes offsets from outside a group only"
                        + " while it is empty. Stop that dead-letter consumer, or register the topic with"
                        + " noDeadLetterConsumer(), and run again")
                .formatted(queue, groupId, members, group);
        return new IllegalStateException(message + nothingRemoved(appended), cause);
    }

    /** A failure before the commit, with what it leaves behind: nothing removed, nothing lost. */
    private ShoveException notRemoved(ShoveException failure, int appended) {
        String message = failure.getMessage() + nothingRemoved(appended);
        return failure.isRetriable()
                ? new BrokerUnavailableException(message, failure.getCause())
                : new ShoveException(message, failure.getCause());
    }

    private String nothingRemoved(int appended) {
        return ". Nothing was removed: copies already published stay published and every dead letter is still in '"
                + queue + "'" + twice(appended);
    }

    private static String twice(int appended) {
        return appended > 0
                ? " (up to " + appended + " dead letters kept before removed ones were appended again, so may be"
                        + " there twice)"
                : "";
    }

    private @Nullable Part part(int partition) {
        int i = indexOf(partition);
        return i < 0 ? null : parts.get(i);
    }

    private int indexOf(int partition) {
        for (int i = 0; i < parts.size(); i++) {
            if (parts.get(i).tp.partition() == partition) {
                return i;
            }
        }
        return -1;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        fetched.clear();
        try {
            consumer.close(CloseOptions.timeout(apiTimeout));
        } catch (RuntimeException e) {
            log.warn("closing the consumer that read dead letters of '{}': {}", queue, e.toString());
        }
    }

    private void checkOpen() {
        if (closed) {
            throw new IllegalStateException("this scan of dead letters of '" + queue + "' is closed");
        }
    }

    /** One partition of the pass. */
    private static final class Part {
        final TopicPartition tp;
        /** Where the group reads next: records before it are not dead letters any more. */
        long next;
        /** The group's committed offset as this pass last read or wrote it; null for none. */
        @Nullable
        Long committed;
        /** The end offset when the pass began: the pass reads below it. */
        final long end;
        /** The offset after the last record returned. */
        long returnedUpTo;

        Part(GroupPosition p) {
            this.tp = p.partition();
            this.next = p.next();
            this.committed = p.committed();
            this.end = p.end();
            this.returnedUpTo = p.next();
        }
    }

    /** A dead letter as the pass read it: its headers converted as the dead-letter consumer converts them. */
    private static final class Letter implements Delivery {
        private static final byte[] EMPTY = new byte[0];

        final ConsumerRecord<byte[], byte[]> record;
        private final Map<String, String> headers;

        Letter(ConsumerRecord<byte[], byte[]> record) {
            this.record = record;
            this.headers = Collections.unmodifiableMap(KafkaHeaders.fromKafka(record.headers(), false));
        }

        @Override
        public byte[] payload() {
            byte[] value = record.value();
            return value == null ? EMPTY : value;
        }

        @Override
        public Map<String, String> headers() {
            return headers;
        }

        @Override
        public String deliveryId() {
            return record.topic() + "-" + record.partition() + "@" + record.offset();
        }

        @Override
        public String queue() {
            return record.topic();
        }

        @Override
        public int partition() {
            return record.partition();
        }

        @Override
        public long offset() {
            return record.offset();
        }

        @Override
        public long timestampMs() {
            return record.timestamp() >= 0 ? record.timestamp() : -1;
        }

        @Override
        public Position position() {
            return new Position.Captured(record.topic(), record.partition(), record.offset());
        }

        @Override
        public @Nullable String nativeKey() {
            byte[] key = record.key();
            return key == null ? null : new String(key, StandardCharsets.UTF_8);
        }

        @Override
        public String toString() {
            return "DeadLetter[" + deliveryId() + "]";
        }
    }
}
