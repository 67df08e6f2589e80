package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.HandlerInterceptor;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Interceptors around a handler: one for the whole group, two for one registration, and what each can do.
 *
 * <ul>
 *   <li>{@code timing} (group, outermost): observes every call, whoever decides it, and logs how long it took and
 *       the outcome;
 *   <li>{@code tenantGuard} (registration): short-circuits. An order without a {@code tenant} header, or naming a
 *       tenant the shop does not serve, is rejected by the interceptor itself; the handler never runs;
 *   <li>{@code tenantScope} (registration, inside the guard): enriches the context. The handler receives the
 *       group's {@link Shop} narrowed to the order's tenant.
 * </ul>
 *
 * <p>Four orders are published: {@code o-1} (tenant acme) and {@code o-2} (globex) are handled; {@code o-3} (no
 * tenant) and {@code o-4} (initech, unknown) are rejected by the guard and reach {@code handleDead}, which
 * interceptors do not wrap. Every step each interceptor takes is printed, then what shove counted in {@code
 * shove.messages.consumed}: the short-circuited calls too, because shove's metrics interceptor is the outermost link
 * of the chain.
 *
 * <p>Run it with {@code scripts/quickstart.sh Interceptors}.
 */
public final class Interceptors {

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private Interceptors() {}

    /**
     * An order to reserve stock for.
     *
     * @param orderId the order
     * @param sku what is ordered
     * @param quantity how many
     */
    public record Order(String orderId, String sku, int quantity) {}

    static final Topic<Order> ORDERS = Topic.builder("tenant-orders", Order.class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    /**
     * The context: the tenants the shop serves, the trace of the run and, once {@code tenantScope} ran, the tenant
     * of the message being handled.
     *
     * @param tenants the tenants served
     * @param trace where every step is written
     * @param tenant the current message's tenant; null in the group's own context
     */
    public record Shop(
            Set<String> tenants, Trace trace, @Nullable String tenant) {
        /** This context, for one tenant. */
        Shop forTenant(String tenant) {
            return new Shop(tenants, trace, tenant);
        }
    }

    // region timing
    /** Group-wide, outermost: sees every call and the outcome it ended with, whoever decided it. */
    static final HandlerInterceptor TIMING = invocation -> {
        Trace trace = ((Shop) invocation.context()).trace();
        String orderId = ((Order) invocation.message()).orderId();
        long start = System.nanoTime();
        trace.step(orderId, "timing", "enter");
        Outcome outcome = invocation.proceed();
        trace.step(
                orderId,
                "timing",
                "%s after %d µs".formatted(outcome, TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - start)));
        trace.outcome(orderId, outcome);
        return outcome;
    };
    // endregion timing

    // region tenant-guard
    /** Per registration: only orders of a tenant the shop serves reach the handler. */
    static final HandlerInterceptor TENANT_GUARD = invocation -> {
        Shop shop = (Shop) invocation.context();
        String orderId = ((Order) invocation.message()).orderId();
        Optional<String> tenant = invocation.metadata().header("tenant");
        if (tenant.isEmpty() || !shop.tenants().contains(tenant.get())) {
            shop.trace().step(orderId, "guard", "unknown tenant " + tenant.orElse("(none)") + " -> reject");
            return Outcome.reject("unknown tenant " + tenant.orElse("(none)")); // the handler never runs
        }
        shop.trace().step(orderId, "guard", "tenant " + tenant.get() + " ok");
        return invocation.proceed();
    };
    // endregion tenant-guard

    // region tenant-scope
    /** Per registration, inside the guard: the handler gets the group's context narrowed to the order's tenant. */
    static final HandlerInterceptor TENANT_SCOPE = invocation -> {
        Shop shop = (Shop) invocation.context();
        String tenant = invocation.metadata().header("tenant").orElseThrow(); // the guard made sure
        shop.trace().step(((Order) invocation.message()).orderId(), "scope", "context for " + tenant);
        return invocation.proceed(shop.forTenant(tenant));
    };
    // endregion tenant-scope

    /** Reserves stock for the tenant it is given; knows nothing about tenants it is not given. */
    static final class OrderHandler implements MessageHandler<Order, Shop> {
        @Override
        public Outcome handle(Order order, MessageMetadata meta, Shop shop) {
            String tenant = Objects.requireNonNull(shop.tenant(), "tenantScope sets the tenant");
            shop.trace().handled(order.orderId(), tenant);
            shop.trace()
                    .step(
                            order.orderId(),
                            "handler",
                            "reserved %d x %s for %s".formatted(order.quantity(), order.sku(), tenant));
            return Outcome.ack();
        }

        @Override
        public void handleDead(Order order, DeadMessageMetadata meta, Shop shop) {
            shop.trace().dead(order.orderId(), meta.reason());
        }
    }

    /** Runs the example; exits 0 when every interceptor did what the class comment says. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Publishes the four orders and runs the group until all four reached their end, or {@code timeout} passes. */
    public static Result run(PrintStream out, Duration timeout) {
        MeterRegistry registry = new SimpleMeterRegistry();
        Trace trace = new Trace(out);
        Shop shop = new Shop(Set.of("acme", "globex"), trace, null);
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.builder(InMemoryConfig.ofDefaults())
                .meterRegistry(registry)
                .connect()) {
            // region register
            var group = broker.consumerGroup()
                    .withContext(shop) // first: withContext returns a new group
                    .withInterceptor(TIMING); // around every topic registered after this, outermost
            group.register(
                    ORDERS,
                    ConsumerGroupConfig.builder()
                            .prefetch(1)
                            .interceptors(TENANT_GUARD, TENANT_SCOPE) // then the registration's own, outermost first
                            .build(),
                    OrderHandler::new);
            // endregion register
            group.start();
            var publisher = broker.publisher();
            publisher.publishWithHeaders(ORDERS, new Order("o-1", "sku-1", 2), Map.of("tenant", "acme"));
            publisher.publishWithHeaders(ORDERS, new Order("o-2", "sku-7", 1), Map.of("tenant", "globex"));
            publisher.publish(ORDERS, new Order("o-3", "sku-1", 5));
            publisher.publishWithHeaders(ORDERS, new Order("o-4", "sku-2", 1), Map.of("tenant", "initech"));
            long deadline = System.nanoTime() + timeout.toNanos();
            while (!trace.finished() && System.nanoTime() - deadline < 0) {
                sleep(Duration.ofMillis(5));
            }
            outcome = group.stop(Duration.ofSeconds(5));
        }
        Map<String, Double> consumed = new LinkedHashMap<>();
        for (Outcome.Kind kind : Outcome.Kind.values()) {
            Counter c = registry.find("shove.messages.consumed")
                    .tag("topic", ORDERS.name())
                    .tag("outcome", kind.tag())
                    .counter();
            consumed.put(kind.tag(), c == null ? 0.0 : c.count());
        }
        out.printf("shove.messages.consumed: %s (counted by the outermost interceptor, shove's own)%n", consumed);
        Result result = trace.result(consumed, outcome);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "interceptors ran outermost first; the guard short-circuited o-3 and o-4; the handler got"
                                + " its tenant"
                        : "UNEXPECTED: " + problems);
        return result;
    }

    private static void sleep(Duration d) {
        try {
            Thread.sleep(d);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /**
     * What the run recorded.
     *
     * @param steps per order, who did what ({@code timing}, {@code guard}, {@code scope}, {@code handler}), in order
     * @param outcomes per order, the outcome the timing interceptor saw
     * @param handled per order the handler ran for, the tenant its context named
     * @param dead per dead-lettered order, the reason handleDead saw
     * @param consumed {@code shove.messages.consumed} by outcome
     * @param outcome how the group stopped
     */
    public record Result(
            Map<String, List<String>> steps,
            Map<String, Outcome.Kind> outcomes,
            Map<String, String> handled,
            Map<String, String> dead,
            Map<String, Double> consumed,
            SupervisorOutcome outcome) {

        /** Who acted on an order, in order: {@code timing, guard, scope, handler, timing} for a handled one. */
        public List<String> actors(String orderId) {
            return steps.getOrDefault(orderId, List.of()).stream()
                    .map(s -> s.substring(0, s.indexOf(':')))
                    .toList();
        }

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            for (String id : List.of("o-1", "o-2")) {
                if (!actors(id).equals(List.of("timing", "guard", "scope", "handler", "timing"))) {
                    problems.add(id + " should pass timing, guard, scope, the handler and timing, was " + actors(id));
                }
            }
            for (String id : List.of("o-3", "o-4")) {
                if (!actors(id).equals(List.of("timing", "guard", "timing"))) {
                    problems.add(id + " should be stopped by the guard inside timing, was " + actors(id));
                }
            }
            if (!handled.equals(Map.of("o-1", "acme", "o-2", "globex"))) {
                problems.add("the handler should run for o-1 (acme) and o-2 (globex) only, ran for " + handled);
            }
            if (!dead.equals(
                    Map.of("o-3", "rejected: unknown tenant (none)", "o-4", "rejected: unknown tenant initech"))) {
                problems.add("o-3 and o-4 should be dead-lettered by the guard's rejection, were " + dead);
            }
            if (consumed.get("ack") != 2.0 || consumed.get("reject") != 2.0) {
                problems.add("shove.messages.consumed should count 2 acks and 2 rejects, counted " + consumed);
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }

    /** Prints and records every step. Thread-safe. */
    public static final class Trace {
        private final PrintStream out;
        private final Map<String, List<String>> steps = new LinkedHashMap<>();
        private final Map<String, Outcome.Kind> outcomes = new LinkedHashMap<>();
        private final Map<String, String> handled = new LinkedHashMap<>();
        private final Map<String, String> dead = new LinkedHashMap<>();

        Trace(PrintStream out) {
            this.out = out;
        }

        synchronized void step(String orderId, String who, String what) {
            steps.computeIfAbsent(orderId, k -> new ArrayList<>()).add(who + ": " + what);
            out.printf("%-4s %-10s %s%n", orderId, who, what);
        }

        synchronized void outcome(String orderId, Outcome outcome) {
            outcomes.put(orderId, outcome.kind());
        }

        synchronized void handled(String orderId, String tenant) {
            handled.put(orderId, tenant);
        }

        synchronized void dead(String orderId, String reason) {
            dead.put(orderId, reason);
            out.printf("%-4s %-10s %s (dead letters are not intercepted)%n", orderId, "handleDead", reason);
        }

        /** Whether all four orders were decided and both rejected ones reached handleDead. */
        synchronized boolean finished() {
            return outcomes.size() == 4 && dead.size() == 2;
        }

        synchronized Result result(Map<String, Double> consumed, SupervisorOutcome outcome) {
            Map<String, List<String>> s = new LinkedHashMap<>();
            steps.forEach((k, v) -> s.put(k, List.copyOf(v)));
            return new Result(
                    Map.copyOf(s), Map.copyOf(outcomes), Map.copyOf(handled), Map.copyOf(dead), consumed, outcome);
        }
    }
}
