package dev.shove.internal;

import dev.shove.DeadLetter;
import dev.shove.DeadLetterException;
import dev.shove.DeadLetterOptions;
import dev.shove.DeadLetterQueue;
import dev.shove.DeadLetterReport;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageMetadata;
import dev.shove.Sequencing;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.DeadLetterStore;
import dev.shove.spi.Delivery;
import dev.shove.spi.OutboundMessage;
import dev.shove.spi.Transport;
import dev.shove.spi.WireHeaders;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dead-letter tools over a transport's {@link DeadLetterStore}: this class decides what is read, what is
 * replayed with which headers, and when a dead letter may be removed (only after its copy is accepted); the store
 * reads and removes.
 */
final class DeadLetterQueueImpl<T> implements DeadLetterQueue<T> {
    private static final Logger log = LoggerFactory.getLogger(DeadLetterQueueImpl.class);

    /** Headers a dead letter has that its replayed copy must not: it starts its retries again. */
    private static final List<String> DEATH_HEADERS = List.of(
            ShoveHeaders.RETRY_COUNT,
            ShoveHeaders.NOT_BEFORE,
            ShoveHeaders.DEATH_REASON,
            ShoveHeaders.ORIGINAL_QUEUE,
            ShoveHeaders.EXCEPTION_CLASS,
            ShoveHeaders.EXCEPTION_MESSAGE,
            ShoveHeaders.EXCEPTION_TRACE);

    private final Topic<T> topic;
    private final Transport transport;
    private final WireHeaders wireHeaders;
    private final DeadLetterStore store;

    DeadLetterQueueImpl(Topic<T> topic, String group, Transport transport, WireHeaders wireHeaders) {
        if (topic.dlq().isEmpty()) {
            throw new IllegalArgumentException("topic '" + topic.name()
                    + "' has no dead-letter queue; declare it with dlq() to keep dead letters");
        }
        this.topic = topic;
        this.transport = transport;
        this.wireHeaders = wireHeaders;
        this.store = transport.deadLetters(topic, group);
    }

    @Override
    public Topic<T> topic() {
        return topic;
    }

    @Override
    public String name() {
        return store.queue();
    }

    @Override
    public OptionalLong count() {
        long count = store.count();
        return count < 0 ? OptionalLong.empty() : OptionalLong.of(count);
    }

    @Override
    public boolean readsInPlace() {
        return store.readsInPlace();
    }

    @Override
    public synchronized List<DeadLetter<T>> browse(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("max must be at least 1, was " + max);
        }
        List<DeadLetter<T>> letters = new ArrayList<>(Math.min(max, DeadLetterOptions.MAX_PAGE_SIZE));
        try (DeadLetterStore.Scan scan = store.scan()) {
            while (letters.size() < max) {
                List<Delivery> page = scan.next(Math.min(max - letters.size(), DeadLetterOptions.MAX_PAGE_SIZE));
                if (page.isEmpty()) {
                    break;
                }
                for (Delivery d : page) {
                    letters.add(read(d));
                }
            }
        }
        return letters;
    }

    @Override
    public DeadLetterReport replay(Predicate<? super DeadLetter<T>> filter, DeadLetterOptions options) {
        return run(filter, options, true);
    }

    @Override
    public DeadLetterReport purge(Predicate<? super DeadLetter<T>> filter, DeadLetterOptions options) {
        return run(filter, options, false);
    }

    private synchronized DeadLetterReport run(
            Predicate<? super DeadLetter<T>> filter, DeadLetterOptions options, boolean replay) {
        Pass pass = new Pass(options);
        Pacer pacer = new Pacer(options.ratePerSecond().orElse(0));
        long max = options.maxMessages().orElse(Long.MAX_VALUE);
        try (DeadLetterStore.Scan scan = store.scan()) {
            while (pass.moved < max) {
                List<Delivery> page = scan.next(options.pageSize());
                if (page.isEmpty()) {
                    break;
                }
                List<Delivery> chosen = new ArrayList<>();
                List<CompletableFuture<Void>> copies = new ArrayList<>();
                String stop = null;
                Throwable cause = null;
                for (Delivery d : page) {
                    if (pass.moved + chosen.size() >= max) {
                        break;
                    }
                    pass.scanned++;
                    DeadLetter<T> letter = read(d);
                    try {
                        if (!filter.test(letter)) {
                            continue;
                        }
                    } catch (RuntimeException e) {
                        stop = "the filter threw on dead letter " + letter.id() + " of '" + store.queue() + "'";
                        cause = e;
                        break;
                    }
                    pass.matched++;
                    OutboundMessage copy = null;
                    if (replay) {
                        if (letter.replayCount() >= options.maxReplays()) {
                            pass.refused(
                                    letter,
                                    "it was replayed " + letter.replayCount() + " times already (maxReplays "
                                            + options.maxReplays() + "): fix its cause, raise maxReplays, or purge it");
                            continue;
                        }
                        copy = copyOf(d, letter);
                        if (copy == null) {
                            pass.refused(letter, "it has no ordering key and cannot be decoded to find one; purge it");
                            continue;
                        }
                    }
                    if (!options.dryRun()) {
                        if (!pacer.acquire()) {
                            stop = "interrupted";
                            cause = new InterruptedException();
                            break;
                        }
                        if (copy != null) {
                            copies.add(transport.publish(topic, copy));
                        }
                    }
                    chosen.add(d);
                    pass.movedId(letter.id());
                }
                if (!options.dryRun()) {
                    settle(scan, chosen, copies, pass, replay);
                } else {
                    pass.moved += chosen.size();
                }
                if (stop != null) {
                    throw pass.stopped(stop, cause);
                }
                options.progress().accept(pass.report());
            }
        }
        DeadLetterReport report = pass.report();
        if (!options.dryRun() && report.moved() > 0) {
            log.info(
                    "{} {} dead letters of '{}'{} ({} scanned, {} refused)",
                    replay ? "replayed" : "purged",
                    report.moved(),
                    store.queue(),
                    replay ? " to topic '" + topic.name() + "'" : "",
                    report.scanned(),
                    report.refused());
        }
        return report;
    }

    /** Waits for the page's copies, then removes the dead letters whose copy was accepted (all of them, for a purge). */
    private void settle(
            DeadLetterStore.Scan scan,
            List<Delivery> chosen,
            List<CompletableFuture<Void>> copies,
            Pass pass,
            boolean replay) {
        List<Delivery> accepted = new ArrayList<>(chosen.size());
        Throwable failure = null;
        for (int i = 0; i < chosen.size(); i++) {
            if (replay) {
                try {
                    copies.get(i).get();
                } catch (ExecutionException e) {
                    failure = failure != null ? failure : e.getCause();
                    continue;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    failure = failure != null ? failure : e;
                    continue;
                }
            }
            accepted.add(chosen.get(i));
        }
        if (!accepted.isEmpty()) {
            try {
                scan.remove(accepted);
            } catch (RuntimeException e) {
                throw pass.stopped(
                        "removing " + accepted.size() + " dead letters from '" + store.queue() + "' failed"
                                + (replay ? " after their copies were published (they will be replayed again)" : ""),
                        e);
            }
            pass.moved += accepted.size();
        }
        if (failure != null) {
            throw pass.stopped(
                    "replaying to topic '" + topic.name() + "' failed; the dead letters not replayed are still in '"
                            + store.queue() + "'",
                    failure);
        }
    }

    /**
     * The copy of a dead letter that goes back to the topic: retries from 0, no death headers, one more replay; null
     * for a dead letter of a sequenced topic whose ordering key cannot be found.
     */
    private @Nullable OutboundMessage copyOf(Delivery d, DeadLetter<T> letter) {
        Map<String, String> headers = new HashMap<>(d.headers());
        DEATH_HEADERS.forEach(headers::remove);
        headers.putIfAbsent(ShoveHeaders.MESSAGE_ID, Ids.newMessageId());
        headers.put(ShoveHeaders.REPLAY_COUNT, Integer.toString(letter.replayCount() + 1));
        String key = null;
        int shard = -1;
        Sequencing<T> sequencing = topic.sequencing().orElse(null);
        if (sequencing != null) {
            key = headers.get(ShoveHeaders.SEQUENCE_KEY);
            if (key == null) {
                key = d.nativeKey();
            }
            if (key == null && letter.message().isPresent()) {
                key = sequencing.keyOf(letter.message().get());
            }
            if (key == null) {
                return null;
            }
            headers.put(ShoveHeaders.SEQUENCE_KEY, key);
            shard = sequencing.shardOf(key);
        }
        return new OutboundMessage(
                d.payload(), Map.copyOf(headers), key, shard, topic.codec().contentType());
    }

    private DeadLetter<T> read(Delivery d) {
        Map<String, String> h = d.headers();
        int count = d.deliveryCount();
        MessageMetadata message = new MessageMetadata(
                topic.name(),
                wireHeaders.retryCount(h),
                d.deliveryId(),
                d.redelivered(),
                count > 0 ? OptionalInt.of(count) : OptionalInt.empty(),
                h,
                d.partition() >= 0 ? OptionalInt.of(d.partition()) : OptionalInt.empty(),
                d.offset() >= 0 ? OptionalLong.of(d.offset()) : OptionalLong.empty(),
                d.timestampMs() >= 0 ? OptionalLong.of(d.timestampMs()) : OptionalLong.empty(),
                Optional.ofNullable(d.position()));
        DeadMessageMetadata metadata = new DeadMessageMetadata(
                message,
                Failures.oneLine(h.getOrDefault(ShoveHeaders.DEATH_REASON, "unknown"), Failures.MAX_REASON),
                Failures.oneLine(h.getOrDefault(ShoveHeaders.ORIGINAL_QUEUE, topic.name()), Failures.MAX_ID),
                Math.max(1, wireHeaders.deathCount(h)));
        T decoded = null;
        String unreadable = null;
        try {
            decoded = topic.codec().decode(d.payload(), h);
            if (decoded == null) {
                unreadable = "the codec returned null";
            }
        } catch (VirtualMachineError e) {
            throw e;
        } catch (Throwable e) {
            unreadable = DeliveryPipeline.firstLine(e);
        }
        return new DeadLetter<>(decoded, d.payload(), metadata, wireHeaders.replayCount(h), unreadable);
    }

    /** The running totals of one replay or purge. */
    private final class Pass {
        final DeadLetterOptions options;
        long scanned;
        long matched;
        long moved;
        long refused;
        final List<String> movedIds = new ArrayList<>();
        final List<String> refusedIds = new ArrayList<>();

        Pass(DeadLetterOptions options) {
            this.options = options;
        }

        void movedId(String id) {
            if (movedIds.size() < DeadLetterReport.MAX_IDS) {
                movedIds.add(id);
            }
        }

        void refused(DeadLetter<T> letter, String why) {
            refused++;
            if (refusedIds.size() < DeadLetterReport.MAX_IDS) {
                refusedIds.add(letter.id());
            }
            log.warn("dead letter {} of '{}' is not replayed and stays: {}", letter.id(), store.queue(), why);
        }

        DeadLetterReport report() {
            return new DeadLetterReport(
                    store.queue(), options.dryRun(), scanned, matched, moved, refused, movedIds, refusedIds);
        }

        DeadLetterException stopped(String message, Throwable cause) {
            DeadLetterReport report = report();
            return new DeadLetterException(message + " (" + report + ")", report, cause);
        }
    }

    /** Spaces moves {@code 1/rate} seconds apart; no limit when the rate is 0. */
    private static final class Pacer {
        private final long intervalNanos;
        private long next;

        Pacer(double perSecond) {
            this.intervalNanos = perSecond > 0 ? (long) (TimeUnit.SECONDS.toNanos(1) / perSecond) : 0;
            this.next = System.nanoTime();
        }

        /** Waits for the next slot; false when interrupted (the interrupt stays set). */
        boolean acquire() {
            if (intervalNanos == 0) {
                return true;
            }
            long now = System.nanoTime();
            while (next - now > 0) {
                LockSupport.parkNanos(next - now);
                if (Thread.currentThread().isInterrupted()) {
                    return false;
                }
                now = System.nanoTime();
            }
            next = Math.max(next, now - intervalNanos) + intervalNanos;
            return true;
        }
    }
}
