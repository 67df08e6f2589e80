package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.BatchOptions;
import dev.shove.BatchOutcome;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Replies ({@link Outcome#reply}, {@link Outcome#withReply}): published before the handled message is acknowledged,
 * like any publish (a fresh message id, the user's headers), and never acknowledged without them (at-least-once).
 */
abstract class ReplyContracts<B> extends Contracts<B> {

    ReplyContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("Outcome.reply publishes the reply, received on the reply topic with its payload and a fresh"
            + " shove-message-id, and acknowledges the input")
    void replyPublishedAndInputAcked() {
        Topic<Msg> in = plainTopic("reply-in");
        Topic<Msg> out = plainTopic("reply-out");
        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reply(out, new Msg("reply", m.n() * 10)));
        h().consume(in, rec);
        h().publisher().publish(in, Msg.of(4));

        Recorder.Call<Msg> reply = replies.awaitCalls(1).getFirst();
        assertThat(reply.message()).isEqualTo(new Msg("reply", 40));
        assertThat(reply.messageId())
                .isNotEmpty()
                .isNotEqualTo(rec.calls().getFirst().messageId());
        assertThat(reply.retryCount()).isZero();
        rec.assertNoMoreCalls(1);
        replies.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("an outcome with several replies publishes each of them, to one topic or several")
    void severalReplies() {
        Topic<Msg> in = plainTopic("replies-in");
        Topic<Msg> a = plainTopic("replies-a");
        Topic<Msg> b = plainTopic("replies-b");
        Recorder<Msg> replies = h().acking();
        h().consume(a, replies);
        h().consume(b, replies);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) ->
                Outcome.reply(a, new Msg("a", 1)).withReply(a, new Msg("a", 2)).withReply(b, new Msg("b", 3)));
        h().consume(in, rec);
        h().publisher().publish(in, Msg.of(0));

        replies.awaitCalls(3);
        replies.assertNoMoreCalls(3);
        assertThat(replies.messages()).containsExactlyInAnyOrder(new Msg("a", 1), new Msg("a", 2), new Msg("b", 3));
        assertThat(replies.calls()).extracting(Recorder.Call::messageId).doesNotHaveDuplicates();
        rec.assertNoMoreCalls(1);
    }

    @Test
    @DisplayName("a reply to a topic nobody declared in this process is declared on the way and arrives")
    void replyToUndeclaredTopic() {
        Topic<Msg> in = plainTopic("reply-lazy-in");
        Topic<Msg> out = plainTopic("reply-lazy-out");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reply(out, new Msg("late", m.n())));
        h().consume(in, rec);
        h().publisher().publish(in, Msg.of(5));
        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);

        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        assertThat(replies.awaitCalls(1).getFirst().message()).isEqualTo(new Msg("late", 5));
        assertThat(rec.retryCounts()).containsExactly(0);
    }

    @Test
    @DisplayName("each reply is counted like a publish: shove.messages.published{topic=<reply topic>, outcome=success}")
    void repliesCounted() {
        Topic<Msg> in = plainTopic("reply-counted-in");
        Topic<Msg> out = plainTopic("reply-counted-out");
        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        h().consume(
                        in,
                        h().<Msg>recorder((m, meta, attempt) ->
                                Outcome.reply(out, Msg.of(1)).withReply(out, Msg.of(2))));
        h().publisher().publish(in, Msg.of(0));

        replies.awaitCalls(2);
        h().await(
                        "shove.messages.published{outcome=success} = 2 on the reply topic",
                        () -> h().count("shove.messages.published", "topic", out.name(), "outcome", "success") == 2);
        assertThat(h().count("shove.messages.published", "topic", out.name(), "outcome", "error"))
                .isZero();
    }

    @Test
    @DisplayName("each reply of a batch is counted like a publish in shove.messages.published")
    void batchRepliesCounted() {
        Topic<Msg> in = plainTopic("reply-batch-counted-in");
        Topic<Msg> out = plainTopic("reply-batch-counted-out");
        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        h().broker().topology().declare(in);
        h().publisher().publishBatch(in, List.of(Msg.of(1), Msg.of(2)));
        h().consumeBatch(
                        in,
                        config(),
                        BatchOptions.of(2, tier()),
                        h().<Msg>batchRecorder(b -> b.each((e, attempt) -> Outcome.reply(out, e.message()))));

        replies.awaitCalls(2);
        h().await(
                        "shove.messages.published{outcome=success} = 2 on the reply topic",
                        () -> h().count("shove.messages.published", "topic", out.name(), "outcome", "success") == 2);
    }

    @Test
    @DisplayName("withReply on anything but an ack fails with IllegalStateException")
    void replyOnlyOnAck() {
        Topic<Msg> out = plainTopic("reply-not-ack");

        assertThatThrownBy(() -> Outcome.retry().withReply(out, Msg.of(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Outcome.reject().withReply(out, Msg.of(1))).isInstanceOf(IllegalStateException.class);
        assertThatThrownBy(() -> Outcome.defer().withReply(out, Msg.of(1))).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("a reply's own headers arrive with it")
    void replyHeaders() {
        Topic<Msg> in = plainTopic("reply-headers-in");
        Topic<Msg> out = plainTopic("reply-headers-out");
        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        h().consume(
                        in,
                        h().<Msg>recorder((m, meta, attempt) ->
                                Outcome.ack().withReply(out, Msg.of(1), Map.of("x-correlation", "c-42"))));
        h().publisher().publish(in, Msg.of(0));

        assertThat(replies.awaitCalls(1).getFirst().metadata().headers()).containsEntry("x-correlation", "c-42");
    }

    @Test
    @DisplayName("a reply with a reserved shove- header is refused: the input is retried, neither acknowledged nor"
            + " lost")
    void reservedReplyHeaderRetries() {
        Topic<Msg> in = plainTopic("reply-reserved-in");
        Topic<Msg> out = plainTopic("reply-reserved-out");
        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0
                ? Outcome.ack().withReply(out, Msg.of(1), Map.of(ShoveHeaders.RETRY_COUNT, "7"))
                : Outcome.ack());
        h().consume(in, rec);
        h().publisher().publish(in, Msg.of(0));

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.retryCounts()).containsExactly(0, 1);
        assertThat(replies.calls()).isEmpty();
    }

    @Test
    @DisplayName("at-least-once: a reply the broker refuses leaves the input unacknowledged; it is retried and its"
            + " retries are spent like any other")
    void refusedReplyRetries() {
        assumeTrue(
                h().kit().detectsConflictingDeclarations(),
                "the broker cannot refuse a reply topic declared with another shape");
        Topic<Msg> in = plainTopic("reply-refused-in");
        String name = h().name("reply-refused-out");
        h().broker()
                .topology()
                .declare(Topic.builder(name, Msg.class)
                        .holdQueue(tier())
                        .dlq()
                        .sequenced(SequenceFailure.SKIP, Msg::key)
                        .build());
        Topic<Msg> conflicting =
                Topic.builder(name, Msg.class).holdQueue(tier()).build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> Outcome.reply(conflicting, Msg.of(1)));
        h().consume(in, config(c -> c.maxRetries(1)), rec);
        h().publisher().publish(in, Msg.of(0));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(rec.retryCounts()).containsExactly(0, 1);
        assertThat(death.reason()).isEqualTo("max-retries-exceeded");
    }

    @Test
    @DisplayName(
            "batch replies: every reply of a batch is published, then every message of the batch is" + " acknowledged")
    void batchReplies() {
        Topic<Msg> in = plainTopic("reply-batch-in");
        Topic<Msg> out = plainTopic("reply-batch-out");
        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        h().broker().topology().declare(in);
        h().publisher().publishBatch(in, List.of(Msg.of(1), Msg.of(2), Msg.of(3)));
        BatchRecorder<Msg> rec = h().batchRecorder(b -> b.each(
                (e, attempt) -> Outcome.reply(out, new Msg("re", e.message().n()))));
        h().consumeBatch(in, config(), BatchOptions.of(3, tier()), rec);

        replies.awaitCalls(3);
        assertThat(replies.messages()).containsExactlyInAnyOrder(new Msg("re", 1), new Msg("re", 2), new Msg("re", 3));
        rec.assertNoMoreMessages(3);
        replies.assertNoMoreCalls(3);
    }

    @Test
    @DisplayName("BatchOutcome.all with a reply publishes the reply once per batch")
    void uniformBatchReplyOnce() {
        Topic<Msg> in = plainTopic("reply-batch-all-in");
        Topic<Msg> out = plainTopic("reply-batch-all-out");
        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        h().broker().topology().declare(in);
        h().publisher().publishBatch(in, List.of(Msg.of(1), Msg.of(2), Msg.of(3)));
        BatchRecorder<Msg> rec =
                h().batchRecorder(b -> BatchOutcome.all(Outcome.reply(out, new Msg("batch", b.size()))));
        h().consumeBatch(in, config(), BatchOptions.of(3, tier()), rec);

        rec.awaitMessages(3);
        h().await(
                        "one reply per batch",
                        () -> replies.calls().size() == rec.batches().size());
        replies.assertNoMoreCalls(rec.batches().size());
        assertThat(replies.messages().stream().mapToInt(Msg::n).sum()).isEqualTo(3);
        rec.assertNoMoreMessages(3);
    }

    @Test
    @DisplayName("a batch reply that is refused retries every message of the batch")
    void refusedBatchReplyRetriesAll() {
        Topic<Msg> in = plainTopic("reply-batch-refused-in");
        Topic<Msg> out = plainTopic("reply-batch-refused-out");
        h().broker().topology().declare(in);
        h().publisher().publishBatch(in, List.of(Msg.of(1), Msg.of(2)));
        BatchRecorder<Msg> rec = h().batchRecorder(b -> b.call() == 0
                ? b.each((e, attempt) -> e.message().n() == 1
                        ? Outcome.ack().withReply(out, Msg.of(9), Map.of(ShoveHeaders.RETRY_COUNT, "7"))
                        : Outcome.ack())
                : BatchOutcome.ackAll());
        h().consumeBatch(in, config(), BatchOptions.of(2, tier()), rec);

        BatchRecorder.Batch<Msg> first = rec.awaitBatches(1).getFirst();
        rec.awaitMessages(2 + first.size());
        rec.assertNoMoreMessages(2 + first.size());
        for (Msg m : first.messages()) {
            assertThat(rec.envelopesOf(m))
                    .extracting(e -> e.metadata().retryCount())
                    .as("retry counts of %s", m)
                    .containsExactly(0, 1);
        }
    }

    @Test
    @DisplayName("the continuation of a replying outcome runs once, after the input settled; the reply is on the"
            + " broker and the input is not delivered again")
    void replyContinuation() {
        Topic<Msg> in = plainTopic("reply-continuation-in");
        Topic<Msg> out = plainTopic("reply-continuation-out");
        AtomicInteger runs = new AtomicInteger();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) ->
                Outcome.reply(out, new Msg("done", m.n())).andThen(runs::incrementAndGet));
        var group = h().consume(in, rec);
        h().publisher().publish(in, Msg.of(3));
        h().await("the continuation to run", () -> runs.get() == 1);
        assertThat(group.stop(h().patience()).exitCode()).isZero();

        Recorder<Msg> replies = h().acking();
        h().consume(out, replies);
        assertThat(replies.awaitCalls(1).getFirst().message()).isEqualTo(new Msg("done", 3));
        assertThat(runs).hasValue(1);
        Recorder<Msg> again = h().acking();
        h().consume(in, again);
        again.assertNoMoreCalls(0);
    }
}
