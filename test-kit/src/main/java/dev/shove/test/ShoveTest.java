package dev.shove.test;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Runs a test class with the shove test kit: its test methods (and {@code @BeforeEach}/{@code @AfterEach} methods)
 * may take a {@link ShoveKit} or a {@link dev.shove.Broker Broker&lt;?&gt;} parameter, connected for them and closed
 * afterwards.
 *
 * <pre>{@code
 * @ShoveTest
 * class OrderFlowTest {
 *     @Test
 *     void invalidOrderIsDeadLettered(ShoveKit kit) {
 *         kit.consumerGroup().withContext(shop).register(ORDERS, OrderHandler::new).start();
 *         kit.publisher().publish(ORDERS, new OrderPaid("o-2", -5));
 *         kit.awaitIdle(ORDERS);
 *         assertThat(kit.journey(ORDERS, order -> order.orderId().equals("o-2")))
 *                 .wasDeadLettered("rejected: amount must be positive");
 *     }
 * }
 * }</pre>
 *
 * <p><b>Which broker.</b> The first that applies:
 *
 * <ol>
 *   <li>a broker URI from the system property {@value #BROKER_URI_PROPERTY} or else the environment variable
 *       {@value #BROKER_URI_ENV} ({@code kafka://127.0.0.1:9092}, {@code amqp://guest:guest@127.0.0.1:5672}, {@code
 *       memory:}...), read by {@link dev.shove.BrokerConfig#fromUri}: the backend's module must be on the test class
 *       path;
 *   <li>a broker in a container, when {@link #backend()} names one and Testcontainers is on the test class path and a
 *       Docker daemon answers (checked once per JVM); one container per backend and image serves the whole test run;
 *   <li>the in-memory broker. When {@link #backend()} asked for a container and none could start, the kit says why in
 *       a WARN log line (and in {@link ShoveKit#description()}), or skips the test when {@link #requireBackend()}.
 * </ol>
 *
 * <p>Put it on a class (a {@code @Nested} class inherits its enclosing class's); {@code
 * @ExtendWith(ShoveExtension.class)} alone means every default.
 * @since 0.1.0
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Inherited
@ExtendWith(ShoveExtension.class)
public @interface ShoveTest {

    /** The system property naming the broker of every test, e.g. {@code -Dshove.test.broker.uri=kafka://host:9092}. */
    String BROKER_URI_PROPERTY = "shove.test.broker.uri";

    /** The environment variable naming the broker of every test, read when the system property is not set. */
    String BROKER_URI_ENV = "SHOVE_TEST_BROKER_URI";

    /**
     * The system property that switches the container path off for a run ({@code -Dshove.test.docker=false}): tests
     * asking for a backend then run as if no Docker daemon answered.
     */
    String DOCKER_PROPERTY = "shove.test.docker";

    /**
     * {@return the backend to run on in a container when no broker URI is given: {@code kafka}, {@code rabbitmq},
     * {@code redis} or {@code nats}, or {@code memory} or empty (the default) for the in-memory broker} The backend's
     * module must be on the test class path.
     */
    String backend() default "";

    /**
     * {@return the container image for {@link #backend()}, instead of the kit's default for it (e.g. {@code
     * apache/kafka:4.1.0})} Empty for the default.
     */
    String image() default "";

    /**
     * {@return whether the test needs {@link #backend()}} When neither the broker URI nor a container gives a broker of
     * that backend, the test is skipped (with the reason) instead of running on the in-memory broker.
     */
    boolean requireBackend() default false;

    /** {@return how long a broker lives: one per test method (the default), or one for the whole class} */
    Lifecycle lifecycle() default Lifecycle.PER_METHOD;

    /** How long a kit's broker lives. */
    enum Lifecycle {
        /**
         * A fresh broker for each test method, closed after it (and after its {@code @AfterEach} methods): every
         * group made from it stops, and what was recorded is gone.
         */
        PER_METHOD,
        /**
         * One broker for the test class, closed after its {@code @AfterAll} methods; it may also be taken by
         * {@code @BeforeAll} and {@code @AfterAll} methods. Recordings accumulate across the class's tests until
         * {@link ShoveKit#clear()}.
         */
        PER_CLASS
    }
}
