package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import com.rabbitmq.client.AMQP;
import com.rabbitmq.client.ShutdownSignalException;
import com.rabbitmq.client.impl.AMQImpl;
import dev.shove.BrokerUnavailableException;
import dev.shove.ShoveException;
import dev.shove.TopologyException;
import java.io.IOException;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** How the dead-letter store words what the broker says when reading or counting a dead-letter queue fails. */
class RabbitDeadLettersTest {
    private static final String WHAT = "reading dead-letter queue 'orders-dlq' of topic 'orders'";

    /** A channel operation the broker answered by closing the channel, as the client reports it. */
    private static IOException channelClosed(int code, String text) {
        return new IOException(
                new ShutdownSignalException(false, false, new AMQImpl.Channel.Close(code, text, 60, 70), null));
    }

    @Test
    @DisplayName("a refused read names the queue and the permission to give")
    void accessRefused() {
        ShoveException e = RabbitDeadLetters.failureOf(
                WHAT,
                channelClosed(
                        AMQP.ACCESS_REFUSED,
                        "ACCESS_REFUSED - access to queue 'orders-dlq' in vhost '/' refused for user 'app'"),
                "");

        assertThat(e)
                .isInstanceOf(TopologyException.class)
                .hasMessageStartingWith(WHAT + " failed: RabbitMQ refused it (ACCESS_REFUSED")
                .hasMessageContaining("give the user 'read' permission on the queue");
    }

    @Test
    @DisplayName("a missing dead-letter queue says to declare the topic, and not that its letters are safe")
    void notFound() {
        ShoveException e = RabbitDeadLetters.failureOf(
                WHAT,
                channelClosed(AMQP.NOT_FOUND, "NOT_FOUND - no queue 'orders-dlq' in vhost '/'"),
                ". Nothing is lost");

        assertThat(e)
                .isInstanceOf(TopologyException.class)
                .hasMessageContaining("does not exist on RabbitMQ")
                .hasMessageContaining("broker.topology().declare(topic)")
                .hasMessageNotContaining("Nothing is lost");
    }

    @Test
    @DisplayName("a lost connection is retriable, quotes the broker and says what it means for the letters")
    void connectionLost() {
        ShutdownSignalException lost = new ShutdownSignalException(
                true,
                false,
                new AMQImpl.Connection.Close(320, "CONNECTION_FORCED - Closed via management plugin", 0, 0),
                null);

        ShoveException e = RabbitDeadLetters.failureOf(WHAT, lost, ". Nothing is lost");

        assertThat(e).isInstanceOf(BrokerUnavailableException.class).hasCause(lost);
        assertThat(e.isRetriable()).isTrue();
        assertThat(e)
                .hasMessage(WHAT + " failed: connection closed: 320 CONNECTION_FORCED - Closed via management plugin."
                        + " Nothing is lost");
    }
}
