package dev.shove.test;

import dev.shove.BatchMessageHandler;
import dev.shove.BatchOutcome;
import dev.shove.DeadMessageMetadata;
import dev.shove.Envelope;
import dev.shove.HandlerInterceptor;
import dev.shove.Invocation;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Records every handler call of the kit's groups in the {@link Ledger}: as the outermost interceptor of a group (so it
 * sees the outcome every other interceptor agreed on), and around batch handlers, which interceptors do not wrap.
 */
final class CallRecorder implements HandlerInterceptor {
    private final Ledger ledger;

    CallRecorder(Ledger ledger) {
        this.ledger = ledger;
    }

    @Override
    public Outcome intercept(Invocation invocation) throws Exception {
        String topic = invocation.topic().name();
        MessageMetadata meta = invocation.metadata();
        HandlerCall call = new HandlerCall(meta.retryCount(), meta.deliveryId(), false);
        ledger.callStarted(topic, invocation.groupName(), meta.messageId().orElse(null), call);
        try {
            Outcome outcome = invocation.proceed();
            if (outcome == null) {
                call.threw(new NullPointerException("the handler returned null (shove treats it as retry)"));
            } else {
                call.returned(outcome);
            }
            return outcome;
        } catch (Exception | Error e) {
            call.threw(e);
            throw e;
        } finally {
            ledger.callEnded(topic);
        }
    }

    /** A batch handler factory whose handlers record a call per message of each batch. */
    <T, C> Supplier<BatchMessageHandler<T, C>> batch(
            Topic<T> topic, String group, Supplier<? extends BatchMessageHandler<T, ? super C>> factory) {
        return () -> new RecordedBatch<>(topic.name(), group, factory.get());
    }

    private final class RecordedBatch<T, C> implements BatchMessageHandler<T, C> {
        private final String topic;
        private final String group;
        private final BatchMessageHandler<T, ? super C> handler;

        RecordedBatch(String topic, String group, BatchMessageHandler<T, ? super C> handler) {
            this.topic = topic;
            this.group = group;
            this.handler = handler;
        }

        @Override
        public BatchOutcome handle(List<Envelope<T>> batch, C context) throws Exception {
            List<HandlerCall> calls = new ArrayList<>(batch.size());
            for (Envelope<T> e : batch) {
                MessageMetadata meta = e.metadata();
                HandlerCall call = new HandlerCall(meta.retryCount(), meta.deliveryId(), true);
                ledger.callStarted(topic, group, meta.messageId().orElse(null), call);
                calls.add(call);
            }
            try {
                BatchOutcome outcome = handler.handle(batch, context);
                for (int i = 0; i < calls.size(); i++) {
                    Outcome o = outcomeOf(outcome, i);
                    if (o == null) {
                        calls.get(i)
                                .threw(new IllegalStateException("the batch outcome has no outcome for message " + i
                                        + " of " + calls.size() + ": " + outcome));
                    } else {
                        calls.get(i).returned(o);
                    }
                }
                return outcome;
            } catch (Exception | Error e) {
                calls.forEach(c -> c.threw(e));
                throw e;
            } finally {
                calls.forEach(c -> ledger.callEnded(topic));
            }
        }

        private static @Nullable Outcome outcomeOf(BatchOutcome outcome, int index) {
            if (outcome == null) {
                return null;
            }
            return outcome.uniform().orElseGet(() -> {
                List<Outcome> each = outcome.perMessage();
                return index < each.size() ? each.get(index) : null;
            });
        }

        @Override
        public void handleDead(T message, DeadMessageMetadata metadata, C context) throws Exception {
            handler.handleDead(message, metadata, context);
        }

        @Override
        public void handleUnreadableDead(byte[] payload, DeadMessageMetadata metadata, C context) throws Exception {
            handler.handleUnreadableDead(payload, metadata, context);
        }
    }
}
