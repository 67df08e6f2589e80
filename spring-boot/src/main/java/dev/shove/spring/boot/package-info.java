/**
 * shove for Spring Boot. Add {@code shove-spring-boot-starter} and the backend's module, set {@code shove.uri}, and
 * declare handlers as {@link dev.shove.spring.boot.TopicRegistration} beans: the starter connects a {@link
 * dev.shove.Broker} (in memory when no URI is set), registers the handlers on one consumer group with the application's
 * {@link dev.shove.spring.boot.GroupContext}, starts the group with the application context and drains it on
 * shutdown ({@link dev.shove.spring.boot.ShoveLifecycle}), reports its health to Actuator and uses the application's
 * {@code MeterRegistry} and {@code OpenTelemetry}. Every bean it defines gives way to one the application defines.
 *
 * <pre>{@code
 * @SpringBootApplication
 * class Shop {
 *     @Bean GroupContext<Inventory> shoveContext(Inventory inventory) { return GroupContext.of(inventory); }
 *     @Bean TopicRegistration<OrderPaid, Inventory> orders() { return TopicRegistration.of(ORDERS, OrderHandler::new); }
 *     public static void main(String[] args) { System.exit(ShoveSpringApplication.run(Shop.class, args)); }
 * }
 * }</pre>
 */
@NullMarked
package dev.shove.spring.boot;

import org.jspecify.annotations.NullMarked;
