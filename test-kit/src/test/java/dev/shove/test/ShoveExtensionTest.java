package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.platform.engine.discovery.DiscoverySelectors.selectClass;

import dev.shove.Broker;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.platform.engine.TestExecutionResult;
import org.junit.platform.testkit.engine.EngineExecutionResults;
import org.junit.platform.testkit.engine.EngineTestKit;
import org.junit.platform.testkit.engine.Event;

/**
 * The extension as JUnit runs it: each sample class below runs in the JUnit Platform's test kit, and the test checks
 * what happened to it (and to the kits it was given). The samples are static nested classes, which neither Surefire
 * nor JUnit runs on their own, and {@link Sample} disables them anywhere else.
 */
class ShoveExtensionTest {

    @Test
    @DisplayName("each test gets its own kit, the same in @BeforeEach, @AfterEach and the test, closed after the test")
    void perMethodKits() {
        PerMethodSample.kits.clear();
        assertSucceeded(run(PerMethodSample.class), 2);

        assertThat(PerMethodSample.kits).hasSize(2).doesNotHaveDuplicates();
        for (ShoveKit kit : PerMethodSample.kits) {
            assertThat(kit.source()).isEqualTo(ShoveKit.Source.IN_MEMORY);
            assertThat(kit.description()).isEqualTo("the in-memory broker");
            assertThatThrownBy(kit::publisher)
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("closed");
        }
    }

    @Test
    @DisplayName("a PER_CLASS kit serves @BeforeAll and every test of the class, and is closed after the class")
    void perClassKit() {
        PerClassSample.kits.clear();
        assertSucceeded(run(PerClassSample.class), 2);

        assertThat(PerClassSample.kits).hasSize(3).containsOnly(PerClassSample.kits.getFirst());
        assertThatThrownBy(PerClassSample.kits.getFirst()::publisher).isInstanceOf(IllegalStateException.class);
    }

    @Test
    @DisplayName("a per-method kit asked for by @BeforeAll fails with a message that says what to do instead")
    void perMethodKitRefusedToBeforeAll() {
        EngineExecutionResults results = run(PerMethodBeforeAllSample.class);

        assertThat(results.containerEvents().failed().stream())
                .map(ShoveExtensionTest::failure)
                .anySatisfy(message -> assertThat(message)
                        .contains("cannot be given to")
                        .contains("use @ShoveTest(lifecycle = PER_CLASS)"));
    }

    @Test
    @DisplayName("@ExtendWith(ShoveExtension.class) without @ShoveTest gives the in-memory broker")
    void extendWithAlone() {
        assertSucceeded(run(ExtendWithSample.class), 1);
    }

    @Test
    @DisplayName("a broker URI in the system property wins, and the kit says where it came from")
    void brokerUriFromTheSystemProperty() {
        UriSample.kits.clear();
        runWithProperty(
                ShoveTest.BROKER_URI_PROPERTY, "memory://?capacity=5", () -> assertSucceeded(run(UriSample.class), 1));

        ShoveKit kit = UriSample.kits.getFirst();
        assertThat(kit.source()).isEqualTo(ShoveKit.Source.URI);
        assertThat(kit.description()).isEqualTo("memory:// (from the system property shove.test.broker.uri)");
        assertThat(kit.broker().backendName()).isEqualTo("memory");
    }

    @Test
    @DisplayName("with containers switched off, a test asking for kafka runs on the in-memory broker and says why")
    void fallbackWhenContainersAreSwitchedOff() {
        FallbackSample.kits.clear();
        runWithProperty(ShoveTest.DOCKER_PROPERTY, "false", () -> assertSucceeded(run(FallbackSample.class), 1));

        ShoveKit kit = FallbackSample.kits.getFirst();
        assertThat(kit.source()).isEqualTo(ShoveKit.Source.IN_MEMORY);
        assertThat(kit.description())
                .isEqualTo("the in-memory broker, because @ShoveTest(backend = \"kafka\") asked for a kafka broker in"
                        + " a container, but containers are switched off (-Dshove.test.docker=false), and no broker URI"
                        + " is set (shove.test.broker.uri or SHOVE_TEST_BROKER_URI)");
    }

    @Test
    @DisplayName("without a Docker daemon, a test asking for kafka runs on the in-memory broker and says so")
    void fallbackWithoutDocker() {
        Assumptions.assumeTrue(
                Docker.unavailable(null) != null, "a Docker daemon answers here: the container path would be taken");
        FallbackSample.kits.clear();
        assertSucceeded(run(FallbackSample.class), 1);

        ShoveKit kit = FallbackSample.kits.getFirst();
        assertThat(kit.source()).isEqualTo(ShoveKit.Source.IN_MEMORY);
        assertThat(kit.description())
                .startsWith("the in-memory broker, because @ShoveTest(backend = \"kafka\") asked for a kafka broker")
                .contains("no Docker daemon answers");
    }

    @Test
    @DisplayName("a test that requires kafka is skipped, with the reason, when no container can start")
    void requiredBackendSkipsWithoutContainers() {
        EngineExecutionResults results =
                withProperty(ShoveTest.DOCKER_PROPERTY, "false", () -> run(RequiredSample.class));

        results.testEvents().assertStatistics(s -> s.aborted(1).failed(0).succeeded(0));
        assertThat(results.testEvents().aborted().stream())
                .map(ShoveExtensionTest::failure)
                .singleElement()
                .satisfies(message -> assertThat(message)
                        .contains("containers are switched off")
                        .endsWith("the test requires kafka (requireBackend = true), so it is skipped"));
    }

    @Test
    @DisplayName("a test that requires kafka is skipped when the broker URI names another backend")
    void requiredBackendSkipsOnAnotherBroker() {
        EngineExecutionResults results =
                withProperty(ShoveTest.BROKER_URI_PROPERTY, "memory://", () -> run(RequiredSample.class));

        results.testEvents().assertStatistics(s -> s.aborted(1).failed(0));
        assertThat(results.testEvents().aborted().stream())
                .map(ShoveExtensionTest::failure)
                .singleElement()
                .satisfies(message -> assertThat(message)
                        .startsWith("the test requires kafka (requireBackend = true), but its broker is memory"));
    }

    @Test
    @DisplayName("a backend the kit does not know fails the test class, naming the ones it knows")
    void unknownBackend() {
        EngineExecutionResults results = run(UnknownBackendSample.class);

        assertThat(results.allEvents().failed().stream())
                .map(ShoveExtensionTest::failure)
                .singleElement()
                .satisfies(message -> assertThat(message)
                        .contains("@ShoveTest(backend = \"kafak\") is not a backend the test kit knows")
                        .contains("[memory, kafka, rabbitmq, redis, nats]"));
    }

    // ---------------------------------------------------------------- samples

    @Sample
    @ShoveTest
    static class PerMethodSample {
        static final List<ShoveKit> kits = new CopyOnWriteArrayList<>();
        private ShoveKit fromBeforeEach;

        @BeforeEach
        void setUp(ShoveKit kit) {
            fromBeforeEach = kit;
        }

        @Test
        void first(ShoveKit kit, Broker<?> broker) {
            assertThat(kit).isSameAs(fromBeforeEach);
            assertThat(broker).isSameAs(kit.broker());
            kits.add(kit);
        }

        @Test
        void second(ShoveKit kit) {
            assertThat(kit).isSameAs(fromBeforeEach);
            kits.add(kit);
        }

        @AfterEach
        void tearDown(ShoveKit kit) {
            assertThat(kit).isSameAs(fromBeforeEach);
            kit.broker().ping(); // still open
        }
    }

    @Sample
    @ShoveTest(lifecycle = ShoveTest.Lifecycle.PER_CLASS)
    static class PerClassSample {
        static final List<ShoveKit> kits = new CopyOnWriteArrayList<>();

        @BeforeAll
        static void setUp(ShoveKit kit) {
            kits.add(kit);
        }

        @Test
        void first(ShoveKit kit) {
            kits.add(kit);
        }

        @Test
        void second(ShoveKit kit) {
            kits.add(kit);
        }
    }

    @Sample
    @ShoveTest
    static class PerMethodBeforeAllSample {
        @BeforeAll
        static void setUp(ShoveKit kit) {}

        @Test
        void test() {}
    }

    @Sample
    @ExtendWith(ShoveExtension.class)
    static class ExtendWithSample {
        @Test
        void test(ShoveKit kit) {
            assertThat(kit.broker().backendName()).isEqualTo("memory");
        }
    }

    @Sample
    @ShoveTest
    static class UriSample {
        static final List<ShoveKit> kits = new CopyOnWriteArrayList<>();

        @Test
        void test(ShoveKit kit) {
            kits.add(kit);
        }
    }

    @Sample
    @ShoveTest(backend = "kafka")
    static class FallbackSample {
        static final List<ShoveKit> kits = new CopyOnWriteArrayList<>();

        @Test
        void test(ShoveKit kit) {
            assertThat(kit.broker().backendName()).isEqualTo("memory");
            kits.add(kit);
        }
    }

    @Sample
    @ShoveTest(backend = "kafka", requireBackend = true)
    static class RequiredSample {
        @Test
        void test(ShoveKit kit) {
            throw new AssertionError("a test that requires kafka ran on " + kit.description());
        }
    }

    @Sample
    @ShoveTest(backend = "kafak")
    static class UnknownBackendSample {
        @Test
        void test() {}
    }

    // ---------------------------------------------------------------- helpers

    private static EngineExecutionResults run(Class<?> sample) {
        return EngineTestKit.engine("junit-jupiter")
                .configurationParameter(Sample.ENABLED, "true")
                .selectors(selectClass(sample))
                .execute();
    }

    /** Fails with the samples' own failures when they did not all succeed. */
    private static void assertSucceeded(EngineExecutionResults results, int tests) {
        List<String> failures = results.allEvents().failed().stream()
                .map(ShoveExtensionTest::failure)
                .toList();
        assertThat(failures).as("failures of the sample").isEmpty();
        results.testEvents().assertStatistics(s -> s.succeeded(tests).failed(0).aborted(0));
    }

    private static String failure(Event event) {
        return event.getPayload(TestExecutionResult.class)
                .flatMap(TestExecutionResult::getThrowable)
                .map(t -> t.getMessage() == null ? t.toString() : t.getMessage())
                .orElse("(no throwable)");
    }

    private static <R> R withProperty(String name, String value, Supplier<R> body) {
        String before = System.getProperty(name);
        System.setProperty(name, value);
        try {
            return body.get();
        } finally {
            if (before == null) {
                System.clearProperty(name);
            } else {
                System.setProperty(name, before);
            }
        }
    }

    private static void runWithProperty(String name, String value, Runnable body) {
        withProperty(name, value, () -> {
            body.run();
            return null;
        });
    }
}
