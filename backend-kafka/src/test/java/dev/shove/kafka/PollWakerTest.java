package dev.shove.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * The long poll of an idle poll thread and its wake-ups, on a real {@code KafkaConsumer} with no broker behind it (it
 * polls without ever fetching anything, and reports a pending wake-up like any other).
 */
class PollWakerTest {
    /** Far longer than any bound below: a poll that returns within a bound was cut short. */
    private static final Duration LONG = Duration.ofSeconds(120);

    private KafkaConsumer<byte[], byte[]> consumer;
    private PollWaker waker;

    @BeforeEach
    void consumer() {
        consumer = new KafkaConsumer<>(Map.of(
                "bootstrap.servers", "127.0.0.1:1",
                "key.deserializer", ByteArrayDeserializer.class.getName(),
                "value.deserializer", ByteArrayDeserializer.class.getName()));
        consumer.assign(List.of(new TopicPartition("nowhere", 0)));
        waker = new PollWaker(consumer);
    }

    @AfterEach
    void close() {
        consumer.close(CloseOptions.timeout(Duration.ZERO));
    }

    /** Polls once with a zero timeout: throws {@link WakeupException} if a wake-up is pending. */
    private void pollOnce() {
        consumer.poll(Duration.ZERO);
    }

    @Test
    @DisplayName("a wake cuts a long poll short, and leaves no wake-up pending for the next call")
    void wakeEndsLongPoll() {
        CompletableFuture<Void> poll = CompletableFuture.runAsync(() -> waker.longPoll(LONG, () -> true, r -> {}));
        // wake() does nothing until the poll thread is in its long poll, so keep calling it
        await().atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(20))
                .until(() -> {
                    waker.wake();
                    return poll.isDone();
                });
        assertThat(poll).isCompleted(); // not completed exceptionally: no WakeupException escaped
        assertThat(waker.wakeups()).isEqualTo(1);
        assertThatCode(this::pollOnce).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("a wake while the poll thread is not in a long poll does nothing")
    void wakeOutsideLongPoll() {
        waker.wake();
        assertThat(waker.wakeups()).isZero();
        assertThatCode(this::pollOnce).doesNotThrowAnyException();
    }

    @Test
    @DisplayName("work that arrives between arming and polling makes the long poll a zero poll")
    void workFoundAfterArming() {
        CompletableFuture<Void> poll = CompletableFuture.runAsync(() -> waker.longPoll(LONG, () -> false, r -> {}));
        await().atMost(Duration.ofSeconds(60)).until(poll::isDone);
        assertThat(poll).isCompleted();
        assertThat(waker.wakeups()).isZero();
    }

    @Test
    @DisplayName("wakers racing with many short long polls never leave a wake-up for the calls between them")
    void racingWakers() throws Exception {
        AtomicBoolean done = new AtomicBoolean();
        AtomicInteger wakeCalls = new AtomicInteger();
        List<Thread> wakers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            wakers.add(Thread.ofPlatform().start(() -> {
                while (!done.get()) {
                    waker.wake();
                    wakeCalls.incrementAndGet();
                    Thread.onSpinWait();
                }
            }));
        }
        try {
            for (int i = 0; i < 300; i++) {
                waker.longPoll(Duration.ofMillis(3), () -> true, r -> {});
                pollOnce(); // throws WakeupException if the long poll left one behind
            }
        } finally {
            done.set(true);
            for (Thread t : wakers) {
                t.join();
            }
        }
        assertThat(wakeCalls.get()).isPositive();
        assertThat(waker.wakeups()).isPositive().isLessThanOrEqualTo(300);
    }

    @Test
    @DisplayName("a call that the long poll's one wake-up interrupts is called again once")
    void retryWoken() {
        consumer.wakeup();
        assertThatCode(() -> PollWaker.retryWoken(() -> consumer.poll(Duration.ZERO)))
                .doesNotThrowAnyException();
        assertThatCode(this::pollOnce).doesNotThrowAnyException();
        AtomicInteger calls = new AtomicInteger();
        assertThatThrownBy(() -> PollWaker.retryWoken(() -> {
                    calls.incrementAndGet();
                    throw new WakeupException();
                }))
                .isInstanceOf(WakeupException.class);
        assertThat(calls.get()).isEqualTo(2);
    }
}
