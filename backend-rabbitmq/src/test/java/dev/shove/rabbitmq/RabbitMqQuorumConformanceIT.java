package dev.shove.rabbitmq;

/**
 * The whole conformance kit again on quorum queues ({@link RabbitMqConfig.Builder#quorumQueues()}): every topic's
 * queues are quorum queues, deliveries carry the broker's delivery count (so the contracts on {@code deliveryCount}
 * run), and a sequenced consumer splits its window between the shards. The fixture deletes each contract's queues
 * after it: quorum queues cost the broker file handles, and a class's worth of them would exhaust a small broker.
 */
class RabbitMqQuorumConformanceIT extends RabbitMqConformanceIT {
    @Override
    protected RabbitMqConfig rabbitConfig() {
        return super.rabbitConfig().toBuilder().quorumQueues().build();
    }
}
