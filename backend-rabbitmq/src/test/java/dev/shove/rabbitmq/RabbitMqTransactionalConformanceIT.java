package dev.shove.rabbitmq;

/**
 * The whole conformance kit again with transactional settlement: every settlement goes through {@code tx.select}
 * channels (copies, acks and returns committed per batch) instead of publisher confirms.
 */
class RabbitMqTransactionalConformanceIT extends RabbitMqConformanceIT {
    @Override
    protected RabbitMqConfig rabbitConfig() {
        return super.rabbitConfig().toBuilder().transactionalSettlement().build();
    }
}
