package dev.shove.test.junit5;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.Broker;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.test.ShoveKit;
import dev.shove.test.ShoveTest;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * shove-test in a project on JUnit 5 (this module's JUnit, {@code junit5.version}), as the kit's page promises: a kit
 * per test, handed to {@code @BeforeEach} and the test, closed after it; a class-wide kit given to the constructor.
 */
@ShoveTest
class ShoveTestOnJUnit5Test {
    record Order(String id) {}

    static final Topic<Order> ORDERS = Topic.builder("orders", Order.class)
            .holdQueue(Duration.ofMillis(20))
            .dlq()
            .build();

    static final List<ShoveKit> KITS = new CopyOnWriteArrayList<>();

    private ShoveKit before;

    @BeforeEach
    void remember(ShoveKit kit) {
        before = kit;
        KITS.add(kit);
    }

    @Test
    @DisplayName("the tests run on JUnit 5, not on the JUnit 6 the project builds with")
    void runsOnJUnit5() {
        assertThat(Test.class.getPackage().getImplementationVersion())
                .as("junit-jupiter-api on the class path")
                .startsWith("5.");
    }

    @Test
    @DisplayName("a test gets the kit of its @BeforeEach, connected, and it records, handles and waits for idle")
    void kitWorks(ShoveKit kit, Broker<?> broker) {
        assertThat(kit).isSameAs(before);
        assertThat(broker).isSameAs(kit.broker());
        List<String> handled = new CopyOnWriteArrayList<>();
        kit.consumerGroup()
                .register(ORDERS, () -> (order, meta, ctx) -> {
                    handled.add(order.id());
                    return Outcome.ack();
                })
                .start();
        kit.publisher().publish(ORDERS, new Order("o-1"));
        kit.awaitIdle(ORDERS);

        assertThat(kit.publishedMessages(ORDERS)).containsExactly(new Order("o-1"));
        assertThat(handled).containsExactly("o-1");
    }

    @AfterAll
    static void everyKitWasClosed() {
        assertThat(KITS).as("two tests here, one in PerClass").hasSize(3).doesNotHaveDuplicates();
        for (ShoveKit kit : KITS) {
            assertThatThrownBy(kit::publisher)
                    .as("a kit is closed after its test")
                    .isInstanceOf(IllegalStateException.class);
        }
    }

    @Nested
    @ShoveTest(lifecycle = ShoveTest.Lifecycle.PER_CLASS)
    @DisplayName("with lifecycle = PER_CLASS")
    class PerClass {
        private final ShoveKit kit;

        PerClass(ShoveKit kit) {
            this.kit = kit;
        }

        @Test
        @DisplayName("the constructor gets the class's kit, the same the test gets")
        void constructorGetsTheKit(ShoveKit kit) {
            assertThat(kit).isSameAs(this.kit);
            assertThat(kit.source()).isEqualTo(ShoveKit.Source.IN_MEMORY);
        }
    }
}
