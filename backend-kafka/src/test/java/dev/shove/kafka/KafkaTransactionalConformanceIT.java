package dev.shove.kafka;

/**
 * The whole conformance kit again with transactional settlement ({@link KafkaConfig.Builder#transactional()}): every
 * consumer commits its replies, hold copies and dead-letter copies with its offsets in one Kafka transaction, and reads
 * with {@code isolation.level=read_committed}.
 */
class KafkaTransactionalConformanceIT extends KafkaConformanceIT {
    @Override
    protected boolean transactional() {
        return true;
    }
}
