package dev.shove.conformance;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.shove.AutoscalerConfig;
import dev.shove.Outcome;
import dev.shove.SequenceFailure;
import dev.shove.ShoveException;
import dev.shove.Topic;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Micrometer meters with shove's names and tags, read from the broker's {@code SimpleMeterRegistry}. */
abstract class MetricsContracts<B> extends Contracts<B> {
    static final String CONSUMED = "shove.messages.consumed";
    static final String FAILED = "shove.messages.failed";
    static final String DEAD_LETTERED = "shove.messages.dead.lettered";
    static final String PUBLISHED = "shove.messages.published";
    static final String PROCESSING_DURATION = "shove.message.processing.duration";
    static final String PUBLISH_DURATION = "shove.message.publish.duration";
    static final String SIZE = "shove.message.size";
    static final String INFLIGHT = "shove.messages.inflight";
    static final String AUTOSCALER_DECISIONS = "shove.autoscaler.decisions";
    static final String BACKLOG_READY = "shove.backlog.ready";
    static final String BACKLOG_UNACKED = "shove.backlog.unacked";
    static final String BACKLOG_HELD = "shove.backlog.held";
    static final String BACKLOG_WAITING = "shove.backlog.waiting";
    static final String BACKLOG_OLDEST_WAIT = "shove.backlog.oldest.wait";
    static final List<String> BACKLOG_GAUGES =
            List.of(BACKLOG_READY, BACKLOG_UNACKED, BACKLOG_HELD, BACKLOG_WAITING, BACKLOG_OLDEST_WAIT);

    MetricsContracts(BrokerConformance<B> kit) {
        super(kit);
    }

    @Test
    @DisplayName("shove.messages.consumed{topic, consumer_group, outcome} counts each handled message")
    void consumedCounted() {
        Topic<Msg> topic = plainTopic("metrics-consumed");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitCalls(2);
        h().await(
                        "consumed{outcome=ack} = 2",
                        () -> h().count(
                                                CONSUMED,
                                                "topic",
                                                topic.name(),
                                                "consumer_group",
                                                topic.name(),
                                                "outcome",
                                                "ack")
                                == 2);
    }

    @Test
    @DisplayName("shove.messages.consumed tags each outcome: ack, retry, defer and reject")
    void consumedPerOutcome() {
        Topic<Msg> topic = plainTopic("metrics-outcomes");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (m.n() == 2) {
                return Outcome.reject();
            }
            return switch (attempt) {
                case 0 -> Outcome.retry();
                case 1 -> Outcome.defer();
                default -> Outcome.ack();
            };
        });
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitCalls(4);
        h().await(
                        "one of each outcome",
                        () -> List.of("ack", "retry", "defer", "reject").stream()
                                .allMatch(o -> h().count(CONSUMED, "topic", topic.name(), "outcome", o) == 1));
    }

    @Test
    @DisplayName("shove.messages.failed{reason=handler_error} counts handlers that threw")
    void failedHandlerError() {
        Topic<Msg> topic = plainTopic("metrics-throws");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            if (attempt == 0) {
                throw new IllegalStateException("fails on purpose");
            }
            return Outcome.ack();
        });
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));

        rec.awaitCalls(2);
        h().await(
                        "failed{reason=handler_error} = 1",
                        () -> h().count(FAILED, "topic", topic.name(), "reason", "handler_error") == 1);
    }

    @Test
    @DisplayName("shove.messages.dead.lettered{reason} counts dead letters by reason")
    void deadLetteredCounted() {
        Topic<Msg> topic = plainTopic("metrics-dead");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> m.n() == 1 ? Outcome.reject() : Outcome.retry());
        h().consume(topic, config(c -> c.maxRetries(0)), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));

        rec.awaitDeaths(2);
        assertThat(h().count(DEAD_LETTERED, "topic", topic.name(), "reason", "rejected"))
                .isEqualTo(1);
        assertThat(h().count(DEAD_LETTERED, "topic", topic.name(), "reason", "max_retries_exceeded"))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("shove.messages.published{outcome=success} counts every accepted message, single or batched")
    void publishedCounted() {
        Topic<Msg> topic = plainTopic("metrics-published");
        h().broker().topology().declare(topic);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publishBatch(topic, List.of(Msg.of(2), Msg.of(3)));
        h().publisher().publishAsync(topic, Msg.of(4), Map.of()).join();

        assertThat(h().count(PUBLISHED, "topic", topic.name(), "outcome", "success"))
                .isEqualTo(4);
        assertThat(h().count(PUBLISHED, "topic", topic.name(), "outcome", "error"))
                .isZero();
    }

    @Test
    @DisplayName("shove.messages.published{outcome=error} counts a publish the broker refused")
    void publishErrorCounted() {
        assumeTrue(h().kit().refusesUndeclaredTopics(), "the backend creates topics on first use");
        Topic<Msg> topic = plainTopic("metrics-publish-error");

        assertThatThrownBy(() -> h().publisher().publish(topic, Msg.of(1))).isInstanceOf(ShoveException.class);
        assertThat(h().count(PUBLISHED, "topic", topic.name(), "outcome", "error"))
                .isEqualTo(1);
    }

    @Test
    @DisplayName("shove.message.publish.duration times each publish call, a batch as one")
    void publishDurationTimed() {
        Topic<Msg> topic = plainTopic("metrics-publish-time");
        h().broker().topology().declare(topic);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publishBatch(topic, List.of(Msg.of(2), Msg.of(3)));

        Timer timer = h().search(PUBLISH_DURATION, "topic", topic.name(), "outcome", "success")
                .timer();
        assertThat(timer).isNotNull();
        assertThat(timer.count()).isEqualTo(2);
    }

    @Test
    @DisplayName("shove.message.processing.duration times each handler call, tagged by outcome")
    void processingDurationTimed() {
        Topic<Msg> topic = plainTopic("metrics-processing");
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            Thread.sleep(20);
            return attempt == 0 ? Outcome.retry() : Outcome.ack();
        });
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(2);

        h().await(
                        "one ack sample and one retry sample",
                        () -> timerCount(topic, "ack") == 1 && timerCount(topic, "retry") == 1);
        Timer ack = h().search(PROCESSING_DURATION, "topic", topic.name(), "outcome", "ack")
                .timer();
        assertThat(ack).isNotNull();
        assertThat(ack.totalTime(TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(15);
    }

    private long timerCount(Topic<?> topic, String outcome) {
        Timer timer = h().search(PROCESSING_DURATION, "topic", topic.name(), "outcome", outcome)
                .timer();
        return timer == null ? 0 : timer.count();
    }

    @Test
    @DisplayName("shove.message.size records the payload size of each received message")
    void sizeRecorded() {
        Topic<byte[]> topic =
                h().rawTopic("metrics-size").holdQueue(tier()).dlq().build();
        Recorder<byte[]> rec = h().acking();
        h().consume(topic, rec);
        h().publisher().publish(topic, new byte[100]);
        h().publisher().publish(topic, new byte[300]);
        rec.awaitCalls(2);

        h().await("two size samples", () -> {
            DistributionSummary s = h().search(SIZE, "topic", topic.name()).summary();
            return s != null && s.count() == 2;
        });
        DistributionSummary size = h().search(SIZE, "topic", topic.name()).summary();
        assertThat(size.totalAmount()).isEqualTo(400);
        assertThat(size.max()).isEqualTo(300);
    }

    @Test
    @DisplayName("shove.messages.inflight shows how many handlers run now")
    void inflightGauge() {
        Topic<Msg> topic = plainTopic("metrics-inflight");
        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(4)), rec);
        for (int i = 0; i < 3; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }
        h().await("3 handlers running", () -> rec.running() == 3);

        h().await("inflight = 3", () -> inflight(topic) == 3);
        gate.open();
        rec.awaitCalls(3);
        h().await("inflight back to 0", () -> inflight(topic) == 0);
    }

    private double inflight(Topic<?> topic) {
        Gauge gauge = h().search(INFLIGHT, "topic", topic.name()).gauge();
        return gauge == null ? -1 : gauge.value();
    }

    @Test
    @DisplayName("shove.autoscaler.decisions{consumer_group, direction} counts every autoscaler poll")
    void autoscalerDecisionsCounted() {
        Topic<Msg> topic = plainTopic("metrics-autoscaler");
        String group = h().name("scaled");
        h().consume(
                        topic,
                        h().groupConfig(1, 2)
                                .groupName(group)
                                .autoscaler(AutoscalerConfig.builder()
                                        .pollInterval(Duration.ofMillis(20))
                                        .hysteresis(Duration.ZERO)
                                        .cooldown(Duration.ZERO)
                                        .build())
                                .build(),
                        h().<Msg>acking());

        h().await("autoscaler decisions", () -> h().count(AUTOSCALER_DECISIONS, "consumer_group", group) >= 3);
        assertThat(h().meters(AUTOSCALER_DECISIONS, "consumer_group", group))
                .allSatisfy(m -> assertThat(m.getId().getTag("direction")).isIn("up", "down", "hold"));
    }

    @Test
    @DisplayName("a supervisor's consumers report consumer_group=\"default\"")
    void supervisorGroupTag() {
        Topic<Msg> topic = plainTopic("metrics-supervisor");
        Recorder<Msg> rec = h().acking();
        var supervisor = h().supervisor();
        supervisor.register(topic, rec);
        supervisor.start();
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);

        h().await(
                        "consumed{consumer_group=default} = 1",
                        () -> h().count(CONSUMED, "topic", topic.name(), "consumer_group", "default", "outcome", "ack")
                                == 1);
    }

    @Test
    @DisplayName("a named group's consumers report consumer_group=<group name>")
    void groupNameTag() {
        Topic<Msg> topic = plainTopic("metrics-group");
        String group = h().name("billing");
        Recorder<Msg> rec = h().acking();
        h().consume(topic, h().config(c -> c.groupName(group)), rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);

        h().await(
                        "consumed{consumer_group=" + group + "} = 1",
                        () -> h().count(CONSUMED, "topic", topic.name(), "consumer_group", group, "outcome", "ack")
                                == 1);
        assertThat(h().count(CONSUMED, "topic", topic.name(), "consumer_group", "default"))
                .isZero();
    }

    @Test
    @DisplayName("shove.messages.inflight follows a new group on a topic whose earlier group stopped")
    void inflightGaugeAfterRestart() {
        Topic<Msg> topic = plainTopic("metrics-inflight-restart");
        var first = h().consume(topic, h().acking());
        assertThat(first.stop(h().patience()).exitCode()).isZero();

        Gate gate = h().gate();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> {
            gate.pass();
            return Outcome.ack();
        });
        h().consume(topic, config(c -> c.prefetch(4)), rec);
        h().publisher().publish(topic, Msg.of(1));
        h().publisher().publish(topic, Msg.of(2));
        h().await("2 handlers running", () -> rec.running() == 2);

        h().await("inflight = 2", () -> inflight(topic) == 2);
        gate.open();
    }

    private double gauge(String name, Topic<?> topic) {
        Gauge gauge = h().search(name, "topic", topic.name()).gauge();
        return gauge == null ? Double.NaN : gauge.value();
    }

    @Test
    @DisplayName("shove.backlog.ready + shove.backlog.unacked show the messages a paused registration holds back, and"
            + " return to 0 once they are handled")
    void backlogGauges() {
        Topic<Msg> topic = plainTopic("metrics-backlog");
        Recorder<Msg> rec = h().acking();
        var group = h().consume(topic, rec);
        group.pause(topic);
        for (int i = 0; i < 5; i++) {
            h().publisher().publish(topic, Msg.of(i));
        }

        h().await(
                        "ready + unacked = 5",
                        Duration.ofSeconds(30),
                        () -> gauge(BACKLOG_READY, topic) + gauge(BACKLOG_UNACKED, topic) == 5);
        group.resume(topic);
        rec.awaitCalls(5);
        h().await(
                        "ready + unacked = 0",
                        Duration.ofSeconds(30),
                        () -> gauge(BACKLOG_READY, topic) + gauge(BACKLOG_UNACKED, topic) == 0);
    }

    @Test
    @DisplayName("a retry waiting in a hold tier shows in shove.backlog.held, where the backend counts hold tiers")
    void heldGauge() {
        // The figures may be a refresh interval old (5 s): the copy must stay held longer than that to be seen.
        Duration hold = tier().multipliedBy(40);
        Topic<Msg> topic = h().topic("metrics-held")
                .holdQueue(hold.compareTo(Duration.ofSeconds(20)) < 0 ? Duration.ofSeconds(20) : hold)
                .dlq()
                .build();
        Recorder<Msg> rec = h().recorder((m, meta, attempt) -> attempt == 0 ? Outcome.retry() : Outcome.ack());
        h().consume(topic, rec);
        h().publisher().publish(topic, Msg.of(1));
        rec.awaitCalls(1);
        h().await("the backlog read once", Duration.ofSeconds(30), () -> {
            gauge(BACKLOG_READY, topic); // a read starts the first refresh
            return !Double.isNaN(gauge(BACKLOG_READY, topic));
        });
        assumeTrue(!Double.isNaN(gauge(BACKLOG_HELD, topic)), "the backend does not count its hold tiers");

        h().await("one retry held", Duration.ofSeconds(30), () -> gauge(BACKLOG_HELD, topic) == 1);
    }

    @Test
    @DisplayName("every shove.backlog.* gauge of a plain and a sequenced topic is a number from the first scrape on, or"
            + " absent until known, never NaN; ready + unacked reach the messages published")
    void backlogGaugesNeverNaN() {
        int count = 4;
        Topic<Msg> plain = plainTopic("metrics-first-plain");
        Topic<Msg> sequenced = h().topic("metrics-first-seq")
                .holdQueue(tier())
                .dlq()
                .sequenced(SequenceFailure.SKIP, Msg::key)
                .build();
        List<String> nans = new CopyOnWriteArrayList<>();
        List<Topic<Msg>> topics = List.of(plain, sequenced);
        for (Topic<Msg> topic : topics) {
            var group = h().consume(topic, h().acking());
            group.pause(topic);
            scrapeForNaN(topic, "the first scrape", nans);
        }
        for (Topic<Msg> topic : topics) {
            for (int i = 0; i < count; i++) {
                h().publisher().publish(topic, new Msg("k" + i, i));
            }
        }

        try {
            for (Topic<Msg> topic : topics) {
                h().await(
                                () -> topic.name() + ": ready + unacked = " + count + ", saw "
                                        + (gauge(BACKLOG_READY, topic) + gauge(BACKLOG_UNACKED, topic)),
                                () -> {
                                    scrapeForNaN(topic, "a later scrape", nans);
                                    return gauge(BACKLOG_READY, topic) + gauge(BACKLOG_UNACKED, topic) == count;
                                });
            }
        } finally { // a NaN is the failure this contract is about: it outranks a backlog that was not reached
            assertThat(nans).as("gauges that read NaN").isEmpty();
        }
    }

    /** Reads every backlog gauge of {@code topic} that exists, noting those that read NaN. */
    private void scrapeForNaN(Topic<?> topic, String when, List<String> nans) {
        for (String name : BACKLOG_GAUGES) {
            for (Gauge g : h().search(name, "topic", topic.name()).gauges()) {
                if (Double.isNaN(g.value())) {
                    nans.add(name + " of " + (topic.isSequenced() ? "sequenced " : "plain ") + "topic at " + when);
                }
            }
        }
    }
}
