package demo;

import dev.shove.Broker;
import dev.shove.BrokerConfig;
import dev.shove.Outcome;
import dev.shove.Topic;
import dev.shove.sqs.Sqs;
import dev.shove.sqs.SqsConfig;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * Connects with an {@code sqs://} URI (the backend's provider, found by the service loader on the module path), declares
 * a topic, publishes one message through SNS, receives it and prints it. Argument: the endpoint.
 */
public final class Check {
    public static void main(String[] args) throws Exception {
        Topic<byte[]> topic = Topic.builder("module-path-" + System.nanoTime(), byte[].class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        BrokerConfig<?> config =
                BrokerConfig.fromUri("sqs://us-east-1?accessKeyId=test&secretAccessKey=test&endpoint=" + args[0]);
        if (!(config instanceof SqsConfig sqs)) {
            throw new IllegalStateException("sqs:// gave " + config);
        }
        try (Broker<Sqs> broker = Broker.connect(sqs)) {
            CompletableFuture<String> received = new CompletableFuture<>();
            var group = broker.consumerGroup();
            group.register(topic, () -> (m, meta, c) -> {
                received.complete(new String(m, StandardCharsets.UTF_8));
                return Outcome.ack();
            });
            group.start();
            broker.publisher().publish(topic, "on the module path".getBytes(StandardCharsets.UTF_8));
            System.out.println("RECEIVED " + received.get(30, TimeUnit.SECONDS));
            System.exit(group.stop(Duration.ofSeconds(5)).exitCode());
        }
    }
}
