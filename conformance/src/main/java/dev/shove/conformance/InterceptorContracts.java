package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import dev.shove.AuditRecord;
import dev.shove.BatchOptions;
import dev.shove.ConsumerOptions;
import dev.shove.HandlerInterceptor;
import dev.shove.Invocation;
import dev.shove.Outcome;
import dev.shove.Topic;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Handler interceptors: the order they run in, what they can do to a call (short-circuit, another context, throw),
 * where they can be set, and that batch handlers are not wrapped.
 */
abstract class InterceptorContracts<B> extends Contracts<B> {

    /** A context of the tests' own type. */
    record Tenant(String name) {}

    InterceptorContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    /** An interceptor that notes {@code name-in} and {@code name-out} around the rest of the chain. */
    private static HandlerInterceptor tracing(String name, List<String> trace) {
        return invocation -> {
            trace.add(name + "-in");
            Outcome outcome = invocation.proceed();
            trace.add(name + "-out");
            return outcome;
        };
    }

    /** An interceptor that counts its calls and proceeds. */
    private static HandlerInterceptor counting(AtomicInteger calls) {
        return invocation -> {
            calls.incrementAndGet();
            return invocation.proceed();
        };
    }

    @Test
    @DisplayName("group interceptors run outermost in the order added, then the registration's in the order added,"
            + " then the handler")
    void order() {
        Topic<Msg> topic = plainTopic("intercept-order");
        List<String> trace = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            trace.add("handler");
            return Outcome.ack();
        });
        var group = h().group().withInterceptor(tracing("g1", trace)).withInterceptor(tracing("g2", trace));
        group.register(topic, config(c -> c.interceptors(tracing("r1", trace), tracing("r2", trace))), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        h().await("the chain to unwind", () -> trace.size() == 9);
        assertThat(trace)
                .containsExactly("g1-in", "g2-in", "r1-in", "r2-in", "handler", "r2-out", "r1-out", "g2-out", "g1-out");
    }

    @Test
    @DisplayName("an interceptor sees the call: topic, decoded message, metadata and the group's context")
    void invocationContents() {
        Topic<Msg> topic = plainTopic("intercept-sees");
        AtomicReference<Invocation> seen = new AtomicReference<>();
        Recorder<Msg> rec = h().acking();
        var group = h().track(h().group().withContext(new Tenant("group")));
        group.register(
                topic,
                config(c -> c.interceptors(invocation -> {
                    seen.set(invocation);
                    return invocation.proceed();
                })),
                () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(7));

        Recorder.Call<Msg> call = rec.awaitCalls(1).getFirst();
        Invocation invocation = seen.get();
        assertThat(invocation.topic().name()).isEqualTo(topic.name());
        assertThat(invocation.message()).isEqualTo(Msg.of(7));
        assertThat(invocation.metadata().messageId()).isEqualTo(call.metadata().messageId());
        assertThat(invocation.context()).isEqualTo(new Tenant("group"));
        assertThat(invocation.groupName()).isEqualTo(topic.name());
    }

    @Test
    @DisplayName("one worker's messages one after another: each runs the whole chain, whose invocation shows that"
            + " message and its metadata")
    void invocationPerMessage() {
        Topic<Msg> topic = plainTopic("intercept-each");
        List<String> seen = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.prefetch(1).interceptors(seeing("outer", seen), seeing("inner", seen))), rec);
        for (int n = 1; n <= 5; n++) {
            h().publisher().publish(topic, Msg.of(n));
        }

        List<Recorder.Call<Msg>> calls = rec.awaitCalls(5);
        h().await("the chains to unwind", () -> seen.size() == 10);
        List<String> expected = new ArrayList<>();
        for (Recorder.Call<Msg> call : calls) {
            expected.add("outer " + call.message().n() + " "
                    + call.metadata().messageId().orElseThrow());
            expected.add("inner " + call.message().n() + " "
                    + call.metadata().messageId().orElseThrow());
        }
        assertThat(seen).containsExactlyInAnyOrderElementsOf(expected);
    }

    /** An interceptor that notes the message and message id its invocation shows, then proceeds. */
    private static HandlerInterceptor seeing(String name, List<String> seen) {
        return invocation -> {
            seen.add(name + " " + ((Msg) invocation.message()).n() + " "
                    + invocation.metadata().messageId().orElseThrow());
            return invocation.proceed();
        };
    }

    @Test
    @DisplayName("an interceptor sees the registration's group name when it sets one")
    void invocationGroupName() {
        Topic<Msg> topic = plainTopic("intercept-group");
        String groupName = h().name("billing");
        List<String> seen = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(c -> c.groupName(groupName).interceptors(invocation -> {
                            seen.add(invocation.groupName());
                            return invocation.proceed();
                        })),
                        rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        assertThat(seen).containsExactly(groupName);
    }

    @Test
    @DisplayName("an interceptor can short-circuit with an outcome of its own: the handler is not called, and a"
            + " reject dead-letters the message")
    void shortCircuitReject() {
        Topic<Msg> topic = plainTopic("intercept-reject");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, config(c -> c.interceptors(invocation -> Outcome.reject("no tenant"))), rec);
        h().publisher().publish(topic, Msg.of(1));

        Recorder.Death<Msg> death = rec.awaitDeaths(1).getFirst();
        assertThat(death.reason()).isEqualTo("rejected: no tenant");
        assertThat(death.message()).isEqualTo(Msg.of(1));
        rec.assertNoMoreCalls(0);
    }

    @Test
    @DisplayName("an outer interceptor that short-circuits skips the inner interceptors too")
    void shortCircuitSkipsInner() {
        Topic<Msg> topic = plainTopic("intercept-skip-inner");
        AtomicInteger inner = new AtomicInteger();
        Recorder<Msg> rec = h().acking();
        var group = h().group().withInterceptor(invocation -> Outcome.ack());
        group.register(topic, config(c -> c.interceptors(counting(inner))), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        h().await(
                        "the short-circuit ack",
                        () -> h().count("shove.messages.consumed", "topic", topic.name(), "outcome", "ack") == 1);
        rec.assertNoMoreCalls(0);
        assertThat(inner).hasValue(0);
    }

    @Test
    @DisplayName("proceed(context) gives the rest of the chain and the handler another context")
    void proceedWithContext() {
        Topic<Msg> topic = plainTopic("intercept-context");
        Tenant enriched = new Tenant("enriched");
        AtomicReference<Object> innerSaw = new AtomicReference<>();
        Recorder<Msg> rec = h().acking();
        var group =
                h().track(h().group().withContext(new Tenant("group")).withInterceptor(inv -> inv.proceed(enriched)));
        group.register(
                topic,
                config(c -> c.interceptors(inv -> {
                    innerSaw.set(inv.context());
                    return inv.proceed();
                })),
                () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        assertThat(rec.awaitCalls(1).getFirst().context()).isSameAs(enriched);
        assertThat(innerSaw.get()).isSameAs(enriched);
    }

    @Test
    @DisplayName("an interceptor that throws counts as the handler throwing: the message is retried")
    void throwingInterceptorRetries() {
        Topic<Msg> topic = plainTopic("intercept-throws");
        AtomicInteger calls = new AtomicInteger();
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(c -> c.interceptors(invocation -> {
                            if (calls.getAndIncrement() == 0) {
                                throw new IllegalStateException("interceptor fails on purpose");
                            }
                            return invocation.proceed();
                        })),
                        rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        rec.assertNoMoreCalls(1);
        assertThat(rec.retryCounts()).containsExactly(1);
        assertThat(h().count("shove.messages.failed", "topic", topic.name(), "reason", "handler_error"))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("interceptors do not wrap batch handlers: a group interceptor is never called for a batch"
            + " registration")
    void batchNotIntercepted() {
        Topic<Msg> topic = plainTopic("intercept-batch");
        AtomicInteger calls = new AtomicInteger();
        BatchRecorder<Msg> rec = h().ackingBatches();
        var group = h().group().withInterceptor(counting(calls));
        group.registerBatch(topic, config(), BatchOptions.of(5, tier()), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitMessages(2);
        h().assertStays("the interceptor was never called", () -> calls.get() == 0);
    }

    @Test
    @DisplayName("a group interceptor applies to the topics registered after it, not to those registered before")
    void groupInterceptorAppliesToLaterRegistrations() {
        Topic<Msg> before = plainTopic("intercept-before");
        Topic<Msg> after = plainTopic("intercept-after");
        List<String> seen = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().acking();
        var group = h().group();
        group.register(before, config(), () -> rec);
        group.withInterceptor(invocation -> {
            seen.add(invocation.topic().name());
            return invocation.proceed();
        });
        group.register(after, config(), () -> rec);
        group.start();
        h().publisher().publish(before, Msg.of(1));
        h().publisher().publish(after, Msg.of(2));

        rec.awaitCalls(2);
        h().assertStays("only the later topic intercepted", () -> seen.equals(List.of(after.name())));
    }

    @Test
    @DisplayName("HandlerInterceptor.audit records one AuditRecord per delivery, like audited()")
    void auditInterceptorRecords() {
        Topic<Msg> topic = plainTopic("intercept-audit");
        List<AuditRecord<?>> records = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> m.n() == 2 ? Outcome.reject() : Outcome.ack());
        var group = h().group().withInterceptor(HandlerInterceptor.audit(records::add));
        group.register(topic, config(), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitDeaths(1);
        h().await("2 audit records", () -> records.size() == 2);
        h().assertStays("exactly 2 audit records: dead letters are not audited", () -> records.size() == 2);
        assertThat(records).allSatisfy(r -> assertThat(r.topic()).isEqualTo(topic.name()));
        assertThat(records)
                .extracting(r -> (Object) r.payload(), AuditRecord::outcome)
                .containsExactlyInAnyOrder(tuple(Msg.of(1), Outcome.Kind.ACK), tuple(Msg.of(2), Outcome.Kind.REJECT));
    }

    @Test
    @DisplayName("HandlerInterceptor.audit is strict like audited(): a failing sink turns the ack into a retry")
    void auditInterceptorStrict() {
        Topic<Msg> topic = plainTopic("intercept-audit-fails");
        AtomicInteger audits = new AtomicInteger();
        Recorder<Msg> rec = h().acking();
        h().consume(
                        topic,
                        config(c -> c.interceptors(HandlerInterceptor.audit(r -> {
                            if (audits.getAndIncrement() == 0) {
                                throw new IllegalStateException("audit store down on purpose");
                            }
                        }))),
                        rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        rec.assertNoMoreCalls(2);
        assertThat(rec.retryCounts()).containsExactly(0, 1);
    }

    @Test
    @DisplayName("interceptors added before withContext are kept")
    void interceptorsSurviveWithContext() {
        Topic<Msg> topic = plainTopic("intercept-keep");
        AtomicInteger calls = new AtomicInteger();
        Recorder<Msg> rec = h().acking();
        var group = h().track(h().group().withInterceptor(counting(calls)).withContext(new Tenant("late")));
        group.register(topic, config(), () -> rec);
        group.start();
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        assertThat(calls).hasValue(1);
    }

    @Test
    @DisplayName("a supervisor's interceptors wrap its handlers, outside the registration's own")
    void supervisorInterceptor() {
        Topic<Msg> topic = plainTopic("intercept-supervisor");
        List<String> trace = new CopyOnWriteArrayList<>();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            trace.add("handler");
            return Outcome.ack();
        });
        var supervisor = h().supervisor().withInterceptor(tracing("s", trace));
        supervisor.register(
                topic,
                ConsumerOptions.builder().interceptors(tracing("r", trace)).build(),
                rec);
        supervisor.start();
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(1);
        h().await("the chain to unwind", () -> trace.size() == 5);
        assertThat(trace).containsExactly("s-in", "r-in", "handler", "r-out", "s-out");
    }
}
