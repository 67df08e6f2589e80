package dev.shove.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.shove.Broker;
import dev.shove.BrokerConfig;
import dev.shove.HandlerInterceptor;
import dev.shove.NoContext;
import dev.shove.Outcome;
import dev.shove.Publisher;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import dev.shove.memory.InMemoryProbe;
import dev.shove.opentelemetry.ShoveTracing;
import io.opentelemetry.api.OpenTelemetry;
import io.opentelemetry.sdk.OpenTelemetrySdk;
import io.opentelemetry.sdk.testing.exporter.InMemorySpanExporter;
import io.opentelemetry.sdk.trace.SdkTracerProvider;
import io.opentelemetry.sdk.trace.data.SpanData;
import io.opentelemetry.sdk.trace.export.SimpleSpanProcessor;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.Order;

/** What the auto-configuration defines, from which properties, and how the application's beans replace it. */
class ShoveAutoConfigurationTest {
    private static final Duration WAIT = Duration.ofSeconds(10);

    record Note(String text) {}

    private static final Topic<Note> NOTES = Topic.builder(
                    "boot-notes-" + UUID.randomUUID().toString().substring(0, 8), Note.class)
            .holdQueue(Duration.ofMillis(100))
            .dlq()
            .build();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(
                    ShoveAutoConfiguration.class,
                    ShoveTracingAutoConfiguration.class,
                    ShoveHealthAutoConfiguration.class));

    /** A registration whose handler records the context it was given. */
    @Configuration(proxyBeanMethods = false)
    static class NotesConfig {
        final Queue<Object> contexts = new ConcurrentLinkedQueue<>();
        final Queue<String> order = new ConcurrentLinkedQueue<>();

        @Bean
        TopicRegistration<Note, Object> notes() {
            return TopicRegistration.of(NOTES, () -> (note, meta, ctx) -> {
                contexts.add(ctx);
                order.add("handler");
                return Outcome.ack();
            });
        }
    }

    @Test
    @DisplayName("shove.uri and shove.settings.* configure the broker as Broker.connect reads them")
    void uriAndSettings() {
        runner.withPropertyValues("shove.uri=memory:?capacity=50", "shove.settings.retention=7")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    InMemoryConfig config = (InMemoryConfig) context.getBean(BrokerConfig.class);
                    assertThat(config.capacity()).isEqualTo(50);
                    assertThat(config.retention()).isEqualTo(7);
                });
    }

    @Test
    @DisplayName("a setting the backend does not know fails the start, naming the setting")
    void unknownSetting() {
        runner.withPropertyValues("shove.settings.capacityy=5")
                .run(context ->
                        assertThat(context).hasFailed().getFailure().rootCause().hasMessageContaining("capacityy"));
    }

    @Test
    @DisplayName("a URI whose backend is not on the class path fails the start, naming the module to add")
    void unknownScheme() {
        runner.withPropertyValues("shove.uri=nats://127.0.0.1:4222")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("shove-backend-nats"));
    }

    @Test
    @DisplayName("the application's BrokerConfig bean replaces the one from the properties")
    void brokerConfigOverride() {
        runner.withPropertyValues("shove.uri=memory:?capacity=50")
                .withBean(
                        BrokerConfig.class,
                        () -> InMemoryConfig.builder().capacity(9).build())
                .run(context -> {
                    assertThat(context).hasSingleBean(BrokerConfig.class);
                    assertThat(((InMemoryConfig) context.getBean(BrokerConfig.class)).capacity())
                            .isEqualTo(9);
                    assertThat(context.getBean(Broker.class).backendName()).isEqualTo("memory");
                });
    }

    @Test
    @DisplayName("without a GroupContext bean the handlers get NoContext")
    void noContext() {
        runner.withUserConfiguration(NotesConfig.class).run(context -> {
            context.getBean(Publisher.class).publish(NOTES, new Note("n-1"));
            NotesConfig notes = context.getBean(NotesConfig.class);
            await().atMost(WAIT).until(() -> !notes.contexts.isEmpty());
            assertThat(notes.contexts).containsExactly(NoContext.INSTANCE);
        });
    }

    @Test
    @DisplayName("the handlers get the GroupContext bean's value")
    void groupContext() {
        runner.withUserConfiguration(NotesConfig.class)
                .withBean("shoveContext", GroupContext.class, () -> GroupContext.of("the-context"))
                .run(context -> {
                    context.getBean(Publisher.class).publish(NOTES, new Note("n-2"));
                    NotesConfig notes = context.getBean(NotesConfig.class);
                    await().atMost(WAIT).until(() -> !notes.contexts.isEmpty());
                    assertThat(notes.contexts).containsExactly("the-context");
                });
    }

    @Configuration(proxyBeanMethods = false)
    static class WrongContextConfig {
        @Bean
        GroupContext<String> shoveContext() {
            return GroupContext.of("a string");
        }

        @Bean
        TopicRegistration<Note, Integer> notes() {
            return TopicRegistration.of(NOTES, () -> (note, meta, number) -> Outcome.ack());
        }
    }

    @Test
    @DisplayName(
            "a registration whose context type the GroupContext does not fit refuses to start, naming bean and topic")
    void wrongContextType() {
        runner.withUserConfiguration(WrongContextConfig.class)
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("'notes'")
                        .hasMessageContaining(NOTES.name())
                        .hasMessageContaining("java.lang.Integer"));
    }

    @Configuration(proxyBeanMethods = false)
    static class InterceptorsConfig {
        @Bean
        @Order(2)
        HandlerInterceptor inner(NotesConfig notes) {
            return invocation -> {
                notes.order.add("inner");
                return invocation.proceed();
            };
        }

        @Bean
        @Order(1)
        HandlerInterceptor outer(NotesConfig notes) {
            return invocation -> {
                notes.order.add("outer");
                return invocation.proceed();
            };
        }
    }

    @Test
    @DisplayName("HandlerInterceptor beans wrap every handler in @Order, the first outermost")
    void interceptors() {
        runner.withUserConfiguration(NotesConfig.class, InterceptorsConfig.class)
                .run(context -> {
                    context.getBean(Publisher.class).publish(NOTES, new Note("n-3"));
                    NotesConfig notes = context.getBean(NotesConfig.class);
                    await().atMost(WAIT).until(() -> notes.order.contains("handler"));
                    assertThat(notes.order).containsExactly("outer", "inner", "handler");
                });
    }

    @Test
    @DisplayName("with shove.group.auto-startup=false the group waits for the application to start it")
    void noAutoStartup() {
        runner.withUserConfiguration(NotesConfig.class)
                .withPropertyValues("shove.group.auto-startup=false")
                .run(context -> {
                    ShoveLifecycle lifecycle = context.getBean(ShoveLifecycle.class);
                    assertThat(lifecycle.isRunning()).isFalse();
                    lifecycle.start();
                    assertThat(lifecycle.isRunning()).isTrue();
                });
    }

    @Test
    @DisplayName("a drain timeout that is not positive fails the start, naming the property")
    void badDrainTimeout() {
        runner.withPropertyValues("shove.group.drain-timeout=0s")
                .run(context -> assertThat(context)
                        .hasFailed()
                        .getFailure()
                        .rootCause()
                        .hasMessageContaining("shove.group.drain-timeout"));
    }

    @Test
    @DisplayName("Topic beans without a registration are declared, so the application can publish to them")
    void topicBeansDeclared() {
        Topic<Note> outbound =
                Topic.builder("boot-outbound-" + UUID.randomUUID(), Note.class).build();
        runner.withBean("outbound", Topic.class, () -> outbound).run(context -> {
            assertThat(context).hasNotFailed();
            context.getBean(Publisher.class).publish(outbound, new Note("n-4"));
            assertThat(InMemoryProbe.of(memory(context)).depth(outbound.name())).isEqualTo(1);
        });
    }

    @SuppressWarnings("unchecked")
    private static Broker<InMemory> memory(ApplicationContext context) {
        return (Broker<InMemory>) context.getBean(Broker.class);
    }

    @Test
    @DisplayName("management.health.shove.enabled=false leaves the health contributor out")
    void healthDisabled() {
        runner.withPropertyValues("management.health.shove.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ShoveHealthIndicator.class));
        runner.run(context -> assertThat(context).hasSingleBean(ShoveHealthIndicator.class));
    }

    @Test
    @DisplayName("with an OpenTelemetry bean, publishing and handling make producer and consumer spans of one trace")
    void tracing() {
        InMemorySpanExporter exporter = InMemorySpanExporter.create();
        OpenTelemetrySdk sdk = OpenTelemetrySdk.builder()
                .setTracerProvider(SdkTracerProvider.builder()
                        .addSpanProcessor(SimpleSpanProcessor.create(exporter))
                        .build())
                .build();
        runner.withUserConfiguration(NotesConfig.class)
                .withBean(OpenTelemetry.class, () -> sdk)
                .run(context -> {
                    assertThat(context).hasSingleBean(ShoveTracing.class);
                    context.getBean(Publisher.class).publish(NOTES, new Note("n-5"));
                    await().atMost(WAIT)
                            .until(() -> exporter.getFinishedSpanItems().stream()
                                    .anyMatch(s -> s.getName().equals("process " + NOTES.name())));
                    List<SpanData> spans = exporter.getFinishedSpanItems();
                    SpanData send = spans.stream()
                            .filter(s -> s.getName().equals("send " + NOTES.name()))
                            .findFirst()
                            .orElseThrow();
                    SpanData process = spans.stream()
                            .filter(s -> s.getName().equals("process " + NOTES.name()))
                            .findFirst()
                            .orElseThrow();
                    assertThat(process.getTraceId()).isEqualTo(send.getTraceId());
                });
        sdk.close();
    }

    @Test
    @DisplayName("shove.tracing.enabled=false leaves tracing out even with an OpenTelemetry bean")
    void tracingDisabled() {
        runner.withBean(OpenTelemetry.class, OpenTelemetry::noop)
                .withPropertyValues("shove.tracing.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(ShoveTracing.class));
    }
}
