package dev.shove.memory;

import dev.shove.Broker;
import dev.shove.Outcome;
import dev.shove.ShutdownSignal;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import java.time.Duration;

/**
 * A service in the documented shape, for {@link ShutdownExitCodeTest}: it consumes one message whose handler takes
 * {@code args[0]} ms, prints {@code HANDLING} when the handler starts, and runs until SIGTERM with a drain timeout of
 * {@code args[1]} ms, then exits with the group's exit code.
 */
final class SignalChild {
    private SignalChild() {}

    public static void main(String[] args) {
        Duration work = Duration.ofMillis(Long.parseLong(args[0]));
        Duration drain = Duration.ofMillis(Long.parseLong(args[1]));
        Topic<String> topic = Topic.builder("signals", String.class)
                .holdQueue(Duration.ofSeconds(1))
                .dlq()
                .build();
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup();
            group.register(topic, () -> (message, meta, context) -> {
                System.out.println("HANDLING");
                System.out.flush();
                Thread.sleep(work);
                return Outcome.ack();
            });
            broker.publisher().publish(topic, "work");
            outcome = group.runUntil(ShutdownSignal.onJvmShutdown(), drain);
        }
        System.exit(outcome.exitCode());
    }
}
