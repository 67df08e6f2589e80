package dev.shove.jdbc;

import dev.shove.PublishException;
import dev.shove.ShoveHeaders;
import dev.shove.Topic;
import dev.shove.spi.OutboundMessage;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;

/** Senders for relays under test: one that records, one whose broker can be down or refuse a message. */
final class Senders {
    private Senders() {}

    record Sent(String topic, OutboundMessage message) {
        String messageId() {
            return message.headers().get(ShoveHeaders.MESSAGE_ID);
        }
    }

    /** Records every confirmed publish; fails them while {@link #down} is set; refuses for good what {@link #refuse} matches. */
    static final class Recording implements OutboxRelay.Sender {
        final List<Sent> sent = new CopyOnWriteArrayList<>();
        volatile boolean down;
        volatile Predicate<OutboundMessage> refuse = m -> false;
        private final OutboxRelay.Sender next;

        Recording() {
            this((topic, message) -> CompletableFuture.completedFuture(null));
        }

        Recording(OutboxRelay.Sender next) {
            this.next = next;
        }

        @Override
        public CompletableFuture<Void> publish(Topic<?> topic, OutboundMessage message) {
            if (down) {
                return CompletableFuture.failedFuture(
                        new PublishException("broker down (test) for topic '" + topic.name() + "'", null, true));
            }
            if (refuse.test(message)) {
                return CompletableFuture.failedFuture(
                        new PublishException("message too large (test) for topic '" + topic.name() + "'", null, false));
            }
            return next.publish(topic, message).thenRun(() -> sent.add(new Sent(topic.name(), message)));
        }

        List<String> ids() {
            return sent.stream().map(Sent::messageId).toList();
        }
    }
}
