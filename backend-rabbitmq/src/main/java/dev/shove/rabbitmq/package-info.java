/**
 * The RabbitMQ backend, over the official {@code com.rabbitmq:amqp-client} 5.x: one connection per broker with
 * automatic recovery, durable queues, retries through per-tier TTL hold queues that dead-letter back to their
 * queue, dead letters published by the library (with reason, original queue and death count), sequenced topics on
 * single-active-consumer shard queues, broadcast topics on a fanout exchange with a queue of its own per
 * subscription, an optional transactional mode in which a copy and the acknowledgement of its original commit
 * together, and the dead-letter tools over a topic's DLQ (letters taken with {@code basic.get}, removed by
 * acknowledgement, given back by closing the channel). Start with {@link dev.shove.rabbitmq.RabbitMqConfig}; the
 * mapping and the operational notes are in {@code docs/backends/rabbitmq.md}.
 */
@NullMarked
package dev.shove.rabbitmq;

import org.jspecify.annotations.NullMarked;
