package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ConfirmPublisherTest {

    @Test
    @DisplayName("publish backoff doubles from 100 ms, is jittered into [d/2, d] and never exceeds 2 s")
    void backoff() {
        for (int i = 0; i < 200; i++) {
            assertThat(ConfirmPublisher.backoffMillis(1)).isBetween(50L, 100L);
            assertThat(ConfirmPublisher.backoffMillis(2)).isBetween(100L, 200L);
            assertThat(ConfirmPublisher.backoffMillis(3)).isBetween(200L, 400L);
            assertThat(ConfirmPublisher.backoffMillis(10)).isBetween(1_000L, 2_000L);
            assertThat(ConfirmPublisher.backoffMillis(60)).isBetween(1_000L, 2_000L);
        }
    }
}
