package dev.shove.sqs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.shove.Topic;
import dev.shove.TopologyException;
import dev.shove.spi.DurationText;
import dev.shove.spi.HoldRetention;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import software.amazon.awssdk.services.sns.model.CreateTopicRequest;
import software.amazon.awssdk.services.sns.model.ListSubscriptionsByTopicResponse;
import software.amazon.awssdk.services.sns.model.ListTopicsResponse;
import software.amazon.awssdk.services.sns.model.Subscription;
import software.amazon.awssdk.services.sqs.model.CreateQueueRequest;
import software.amazon.awssdk.services.sqs.model.QueueAttributeName;
import software.amazon.awssdk.services.sqs.model.QueueNameExistsException;

/**
 * The queues and topics of shove's topics on SQS and SNS: their names, their creation (idempotent, checking what
 * exists), and the URLs and ARNs publishing and consuming need, cached once known.
 *
 * <p><b>What a topic becomes.</b> Main queue {@code {prefix}{name}} with a redrive policy to the dead-letter queue
 * {@code {prefix}{dlq}} (the backstop for messages a consumer could not settle; shove dead-letters the others itself),
 * an SNS topic {@code {prefix}{name}} that the main queue is subscribed to with raw delivery, and a queue policy that
 * lets exactly that topic send to the queue. A sequenced topic gets FIFO queues and a FIFO topic ({@code .fifo}). A
 * broadcast topic is only the SNS topic; each subscriber adds a queue of its own ({@link #createSubscriberQueue}).
 * With {@link SqsConfig.Builder#noSns()} there are no SNS topics.
 *
 * <p><b>Conflicts.</b> An existing queue is checked, never re-created: a redrive policy to another dead-letter queue,
 * a policy that does not let the topic send, a queue of the other shape (standard where the topic is sequenced, or
 * FIFO where it is not) or an SNS subscription without raw delivery is a {@link TopologyException} naming what
 * differs. Objects given in the config ({@link SqsConfig#queueUrls()}, {@link SqsConfig#topicArns()}) are only checked.
 *
 * <p>Thread-safe; the blocking methods wait at most the API call timeout per call.
 */
final class SqsTopology {
    private static final Logger log = LoggerFactory.getLogger(SqsTopology.class);
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Pattern SQS_NAME = Pattern.compile("[A-Za-z0-9_-]+");
    /** SQS's longest queue name, {@code .fifo} included. */
    private static final int MAX_QUEUE_NAME = 80;
    /** How long a dead letter stays in its queue: SQS's longest retention, 14 days. */
    static final String DLQ_RETENTION_SECONDS = "1209600";

    static final String TAG_BROADCAST = "shove-broadcast";
    static final String TAG_TOUCHED = "shove-touched";
    /**
     * What a queue is and whose: {@code queue:<topic>} or {@code dlq:<topic>}. A declare from any process reads it, so
     * topic {@code X-dlq} never takes over topic {@code X}'s dead-letter queue (nor the other way round).
     */
    static final String TAG_ROLE = "shove-role";

    private final SqsConfig config;
    private final AwsClients aws;
    private final boolean sns;
    private final Duration timeout;
    private final Map<String, String> queueUrls = new ConcurrentHashMap<>();
    private final Map<String, String> topicArns = new ConcurrentHashMap<>();

    /** A broadcast subscriber's own queue and its SNS subscription. */
    record SubscriberQueue(String name, String url, String arn, String subscriptionArn) {}

    SqsTopology(SqsConfig config, AwsClients aws) {
        this.config = config;
        this.aws = aws;
        this.sns = aws.hasSns();
        this.timeout = config.apiCallTimeout().plusSeconds(5);
        queueUrls.putAll(config.queueUrls());
        topicArns.putAll(config.topicArns());
    }

    // ------------------------------------------------------------------ names

    /** The SQS name of a shove queue: {@code {prefix}{name}}, with {@code .fifo} for a FIFO queue. */
    String queueName(String shoveName, boolean fifo) {
        String name = config.namePrefix() + shoveName;
        if (!SQS_NAME.matcher(name).matches()) {
            throw new TopologyException(("'%s' cannot be an SQS queue or SNS topic name: they allow letters, digits,"
                            + " '-' and '_' only (shove names also allow '.'). Rename the topic or its dead-letter"
                            + " queue")
                    .formatted(shoveName));
        }
        String full = fifo ? name + ".fifo" : name;
        if (full.length() > MAX_QUEUE_NAME) {
            throw new TopologyException(
                    "SQS queue name '%s' is %d characters, over SQS's %d; shorten '%s' or the prefix"
                            .formatted(full, full.length(), MAX_QUEUE_NAME, shoveName));
        }
        return full;
    }

    /** The SNS topic name of a topic: the same as its main queue's. */
    String snsName(Topic<?> topic) {
        return queueName(topic.name(), topic.isSequenced());
    }

    private static String key(String shoveName, boolean fifo) {
        return fifo ? shoveName + ".fifo" : shoveName;
    }

    // ------------------------------------------------------------------ declare

    void declare(Topic<?> topic) {
        if (topic.isBroadcast()) {
            if (!sns) {
                throw new TopologyException("topic '" + topic.name() + "' is a broadcast topic, which needs SNS; this"
                        + " broker was configured with noSns()");
            }
            if (config.topicArns().containsKey(topic.name())) {
                checkTopic(topic, config.topicArns().get(topic.name()));
            } else {
                topicArns.put(topic.name(), createTopic(topic));
            }
            return;
        }
        boolean fifo = topic.isSequenced();
        if (isGiven(topic)) {
            checkGiven(topic);
            return;
        }
        String otherShape = queueName(topic.name(), !fifo);
        if (findQueueUrl(otherShape) != null) {
            throw new TopologyException(
                    ("topic '%s' is declared %s, but the %s queue '%s' exists: the topic was declared"
                                    + " %s before. Keep one shape, or delete queue '%s' first")
                            .formatted(
                                    topic.name(),
                                    fifo ? "sequenced" : "unsequenced",
                                    fifo ? "standard" : "FIFO",
                                    otherShape,
                                    fifo ? "unsequenced" : "sequenced",
                                    otherShape));
        }
        checkLimits(topic);
        String dlqArn = null;
        String dlqUrl = null;
        if (topic.dlq().isPresent()) {
            String dlq = topic.dlq().get();
            Map<String, String> attributes = fifoAttributes(fifo);
            attributes.put(QueueAttributeName.MESSAGE_RETENTION_PERIOD.toString(), DLQ_RETENTION_SECONDS);
            dlqUrl = ensureQueue(queueName(dlq, fifo), attributes, topic, "dlq:" + topic.name());
            queueUrls.put(key(dlq, fifo), dlqUrl);
            dlqArn = attributes(dlqUrl, "reading dead-letter queue '" + dlq + "'")
                    .get("QueueArn");
        }
        String topicArn = sns ? createTopic(topic) : null;
        String mainName = queueName(topic.name(), fifo);
        Map<String, String> create = fifoAttributes(fifo);
        String retention = Long.toString(config.queueRetention().toSeconds());
        create.put(QueueAttributeName.MESSAGE_RETENTION_PERIOD.toString(), retention);
        if (dlqArn != null) {
            create.put(QueueAttributeName.REDRIVE_POLICY.toString(), redrivePolicy(dlqArn));
        }
        String mainUrl = ensureQueue(mainName, create, topic, "queue:" + topic.name());
        Map<String, String> existing = attributes(mainUrl, "reading queue '" + mainName + "'");
        String mainArn = existing.get("QueueArn");
        Map<String, String> update = new HashMap<>();
        checkRedrive(topic, mainName, existing.get("RedrivePolicy"), dlqArn, update);
        if (!retention.equals(existing.get(QueueAttributeName.MESSAGE_RETENTION_PERIOD.toString()))) {
            log.info(
                    "queue '{}' of topic '{}' keeps messages for {}: setting queueRetention {}",
                    mainName,
                    topic.name(),
                    existing.get(QueueAttributeName.MESSAGE_RETENTION_PERIOD.toString()) + " s",
                    DurationText.of(config.queueRetention()));
            update.put(QueueAttributeName.MESSAGE_RETENTION_PERIOD.toString(), retention);
        }
        if (topicArn != null) {
            checkPolicy(topic, mainName, existing.get("Policy"), mainArn, topicArn, update);
            if (dlqUrl != null) {
                // SNS sends what it cannot deliver to the queue to the topic's dead-letter queue (its redrive policy)
                String dlqName = queueName(topic.dlq().orElseThrow(), fifo);
                Map<String, String> dlqUpdate = new HashMap<>();
                checkPolicy(
                        topic,
                        dlqName,
                        attributes(dlqUrl, "reading dead-letter queue '" + dlqName + "'")
                                .get("Policy"),
                        dlqArn,
                        topicArn,
                        dlqUpdate);
                if (!dlqUpdate.isEmpty()) {
                    String url = dlqUrl;
                    SqsErrors.await(
                            aws.sqs(c ->
                                    c.setQueueAttributes(r -> r.queueUrl(url).attributesWithStrings(dlqUpdate))),
                            timeout,
                            "setting " + dlqUpdate.keySet() + " of dead-letter queue '" + dlqName + "'");
                }
            }
        }
        if (!update.isEmpty()) {
            SqsErrors.await(
                    aws.sqs(c -> c.setQueueAttributes(r -> r.queueUrl(mainUrl).attributesWithStrings(update))),
                    timeout,
                    "setting " + update.keySet() + " of queue '" + mainName + "'");
        }
        if (topicArn != null) {
            subscribe(topic, topicArn, mainArn, mainName, dlqArn);
            topicArns.put(topic.name(), topicArn);
        }
        queueUrls.put(key(topic.name(), fifo), mainUrl);
        log.debug("declared topic '{}': queue {}, topic {}", topic.name(), mainUrl, topicArn);
    }

    private boolean isGiven(Topic<?> topic) {
        return config.queueUrls().containsKey(topic.name())
                || config.topicArns().containsKey(topic.name())
                || topic.dlq().map(config.queueUrls()::containsKey).orElse(false);
    }

    /** Topology created elsewhere: every object must be given, exist and fit the topic; nothing is changed. */
    private void checkGiven(Topic<?> topic) {
        boolean fifo = topic.isSequenced();
        String mainUrl = config.queueUrls().get(topic.name());
        String dlqUrl = topic.dlq().map(config.queueUrls()::get).orElse(null);
        String topicArn = config.topicArns().get(topic.name());
        StringBuilder missing = new StringBuilder();
        if (mainUrl == null) {
            missing.append(" queueUrl(\"").append(topic.name()).append("\", ...)");
        }
        if (topic.dlq().isPresent() && dlqUrl == null) {
            missing.append(" queueUrl(\"").append(topic.dlq().get()).append("\", ...)");
        }
        if (sns && topicArn == null) {
            missing.append(" topicArn(\"").append(topic.name()).append("\", ...)");
        }
        if (!missing.isEmpty()) {
            throw new TopologyException(
                    ("topic '%s' is partly given in SqsConfig: shove creates none of a given topic's"
                                    + " objects, so give the rest too:%s%s")
                            .formatted(topic.name(), missing, sns ? " (or configure noSns())" : ""));
        }
        Map<String, String> main =
                attributes(mainUrl, "checking the given queue " + mainUrl + " of topic '" + topic.name() + "'");
        requireShape(topic, mainUrl, main, fifo);
        String dlqArn = null;
        if (dlqUrl != null) {
            Map<String, String> dlq = attributes(dlqUrl, "checking the given dead-letter queue " + dlqUrl);
            requireShape(topic, dlqUrl, dlq, fifo);
            dlqArn = dlq.get("QueueArn");
        }
        Map<String, String> noChanges = new HashMap<>();
        checkRedrive(topic, mainUrl, main.get("RedrivePolicy"), dlqArn, noChanges);
        if (noChanges.remove(QueueAttributeName.REDRIVE_POLICY.toString()) != null) {
            // shove dead-letters what it settles itself; the redrive policy is only the backstop for crashes
            log.info(
                    "the given queue {} of topic '{}' has no redrive policy: a message that keeps crashing its consumer"
                            + " is received again and again instead of moving to the dead-letter queue",
                    mainUrl,
                    topic.name());
        }
        if (topicArn != null) {
            checkTopic(topic, topicArn);
            checkPolicy(topic, mainUrl, main.get("Policy"), main.get("QueueArn"), topicArn, noChanges);
            checkSubscribed(topic, topicArn, main.get("QueueArn"), mainUrl);
        }
        if (!noChanges.isEmpty()) {
            throw new TopologyException("the given queue " + mainUrl + " of topic '" + topic.name() + "' lacks "
                    + noChanges.keySet() + ", which shove does not set on topology it did not create: set "
                    + noChanges);
        }
        queueUrls.put(key(topic.name(), fifo), mainUrl);
        if (dlqUrl != null) {
            queueUrls.put(key(topic.dlq().get(), fifo), dlqUrl);
        }
        if (topicArn != null) {
            topicArns.put(topic.name(), topicArn);
        }
    }

    private static void requireShape(Topic<?> topic, String url, Map<String, String> attributes, boolean fifo) {
        boolean isFifo = "true".equals(attributes.get("FifoQueue"));
        if (isFifo != fifo) {
            throw new TopologyException("queue %s of topic '%s' is %s, but the topic is %s: a %s topic needs %s queues"
                    .formatted(
                            url,
                            topic.name(),
                            isFifo ? "FIFO" : "standard",
                            fifo ? "sequenced" : "unsequenced",
                            fifo ? "sequenced" : "unsequenced",
                            fifo ? "FIFO" : "standard"));
        }
    }

    private static Map<String, String> fifoAttributes(boolean fifo) {
        Map<String, String> attributes = new HashMap<>();
        if (fifo) {
            attributes.put(QueueAttributeName.FIFO_QUEUE.toString(), "true");
            attributes.put(QueueAttributeName.CONTENT_BASED_DEDUPLICATION.toString(), "false");
            // high-throughput FIFO: deduplication and throughput per message group (shove's ids are unique anyway)
            attributes.put(QueueAttributeName.DEDUPLICATION_SCOPE.toString(), "messageGroup");
            attributes.put(QueueAttributeName.FIFO_THROUGHPUT_LIMIT.toString(), "perMessageGroupId");
        }
        return attributes;
    }

    private String redrivePolicy(String dlqArn) {
        ObjectNode policy = JSON.createObjectNode();
        policy.put("deadLetterTargetArn", dlqArn);
        policy.put("maxReceiveCount", config.maxReceiveCount());
        return policy.toString();
    }

    /** The policy letting exactly {@code topicArn} send to the queue. */
    static String queuePolicy(String queueArn, String topicArn) {
        ObjectNode policy = JSON.createObjectNode();
        policy.put("Version", "2012-10-17");
        ObjectNode statement = policy.putArray("Statement").addObject();
        statement.put("Sid", "shove-sns-to-sqs");
        statement.put("Effect", "Allow");
        statement.putObject("Principal").put("Service", "sns.amazonaws.com");
        statement.put("Action", "sqs:SendMessage");
        statement.put("Resource", queueArn);
        statement.putObject("Condition").putObject("ArnEquals").put("aws:SourceArn", topicArn);
        return policy.toString();
    }

    private void checkRedrive(
            Topic<?> topic,
            String queue,
            @Nullable String redrive,
            @Nullable String dlqArn,
            Map<String, String> update) {
        String target = null;
        if (redrive != null && !redrive.isBlank()) {
            try {
                JsonNode node = JSON.readTree(redrive);
                target = node.path("deadLetterTargetArn").asText(null);
            } catch (Exception e) {
                throw new TopologyException("queue '%s' of topic '%s' has a redrive policy that is not JSON: %s"
                        .formatted(queue, topic.name(), redrive));
            }
        }
        if (dlqArn == null) {
            if (target != null) {
                throw new TopologyException(("queue '%s' sends dead letters to %s (its redrive policy), but topic '%s'"
                                + " declares no dead-letter queue. Declare the topic with that dlq, or remove the"
                                + " redrive policy")
                        .formatted(queue, target, topic.name()));
            }
            return;
        }
        if (target == null) {
            update.put(QueueAttributeName.REDRIVE_POLICY.toString(), redrivePolicy(dlqArn));
        } else if (!target.equals(dlqArn)) {
            throw new TopologyException(("queue '%s' sends dead letters to %s (its redrive policy), but topic '%s'"
                            + " declares dead-letter queue '%s' (%s). Declare the topic with its first dlq, or change"
                            + " the queue's redrive policy")
                    .formatted(queue, target, topic.name(), topic.dlq().orElse(""), dlqArn));
        }
    }

    private static void checkPolicy(
            Topic<?> topic,
            String queue,
            @Nullable String policy,
            String queueArn,
            String topicArn,
            Map<String, String> update) {
        if (policy == null || policy.isBlank()) {
            update.put(QueueAttributeName.POLICY.toString(), queuePolicy(queueArn, topicArn));
        } else if (!policy.contains(topicArn)) {
            throw new TopologyException(("queue '%s' of topic '%s' has a policy that does not name SNS topic %s, so the"
                            + " topic cannot send to it. Add a statement allowing sqs:SendMessage from that topic"
                            + " (aws:SourceArn), or remove the policy and let shove set one")
                    .formatted(queue, topic.name(), topicArn));
        }
    }

    /**
     * The URL of queue {@code name}, created with {@code attributes} and tagged with {@code role} if missing. An existing
     * queue tagged with another role belongs to another topic (or is another topic's dead-letter queue): refused.
     */
    private String ensureQueue(String name, Map<String, String> attributes, Topic<?> topic, String role) {
        String url = findQueueUrl(name);
        if (url != null) {
            checkRole(url, name, topic, role);
            return url;
        }
        try {
            return SqsErrors.await(
                            aws.sqs(c -> c.createQueue(CreateQueueRequest.builder()
                                    .queueName(name)
                                    .attributesWithStrings(attributes)
                                    .tags(Map.of(TAG_ROLE, role))
                                    .build())),
                            timeout,
                            "creating queue '" + name + "'")
                    .queueUrl();
        } catch (TopologyException e) {
            if (e.getCause() instanceof QueueNameExistsException) {
                // created meanwhile by another declare: take it, and let the checks see what it is
                String raced = findQueueUrl(name);
                if (raced != null) {
                    checkRole(raced, name, topic, role);
                    return raced;
                }
            }
            throw e;
        }
    }

    private void checkRole(String url, String name, Topic<?> topic, String role) {
        Map<String, String> tags = SqsErrors.await(
                        aws.sqs(c -> c.listQueueTags(r -> r.queueUrl(url))),
                        timeout,
                        "reading the tags of queue '" + name + "'")
                .tags();
        String found = tags.get(TAG_ROLE);
        if (found == null) {
            // made before queues carried their role (or by hand): claim it for this topic
            SqsErrors.await(
                    aws.sqs(c -> c.tagQueue(r -> r.queueUrl(url).tags(Map.of(TAG_ROLE, role)))),
                    timeout,
                    "tagging queue '" + name + "'");
            return;
        }
        if (!found.equals(role)) {
            String owner = found.substring(found.indexOf(':') + 1);
            String what = found.startsWith("dlq:") ? "the dead-letter queue" : "the queue";
            String mine = role.startsWith("dlq:") ? "dead-letter queue" : "queue";
            throw new TopologyException(("topic '%s' cannot be declared: its %s '%s' on SQS is already %s of topic '%s'"
                            + " (tag %s=%s); two topics never share a queue (one's dead letters would be the other's"
                            + " live messages): give the dead-letter queue a name of its own with .dlq(\"...\") or"
                            + " rename one of the topics")
                    .formatted(topic.name(), mine, name, what, owner, TAG_ROLE, found));
        }
    }

    /** The URL of a queue by its SQS name, or null when it does not exist. */
    private @Nullable String findQueueUrl(String name) {
        CompletableFuture<@Nullable String> lookup = aws.sqs(c -> c.getQueueUrl(r -> r.queueName(name)))
                .handle((response, failure) -> {
                    if (failure == null) {
                        return response.queueUrl();
                    }
                    if (SqsErrors.isMissingQueue(failure)) {
                        return null;
                    }
                    throw new CompletionException(SqsErrors.unwrap(failure));
                });
        return SqsErrors.await(lookup, timeout, "looking up queue '" + name + "'");
    }

    private Map<String, String> attributes(String url, String what) {
        return SqsErrors.await(
                        aws.sqs(c -> c.getQueueAttributes(r -> r.queueUrl(url).attributeNamesWithStrings("All"))),
                        timeout,
                        what)
                .attributesAsStrings();
    }

    private String createTopic(Topic<?> topic) {
        requireSns();
        String name = snsName(topic);
        Map<String, String> attributes = new HashMap<>();
        if (topic.isSequenced()) {
            attributes.put("FifoTopic", "true");
            attributes.put("ContentBasedDeduplication", "false");
        }
        return SqsErrors.await(
                        aws.sns(c -> c.createTopic(CreateTopicRequest.builder()
                                .name(name)
                                .attributes(attributes)
                                .build())),
                        timeout,
                        "creating SNS topic '" + name + "'")
                .topicArn();
    }

    private void checkTopic(Topic<?> topic, String topicArn) {
        requireSns();
        Map<String, String> attributes;
        try {
            attributes = SqsErrors.await(
                            aws.sns(c -> c.getTopicAttributes(r -> r.topicArn(topicArn))),
                            timeout,
                            "checking SNS topic " + topicArn + " of topic '" + topic.name() + "'")
                    .attributes();
        } catch (TopologyException e) {
            if (SqsErrors.isMissingTopic(e.getCause() == null ? e : e.getCause())) {
                throw new TopologyException(
                        "SNS topic " + topicArn + " given for topic '" + topic.name() + "' does not exist", e);
            }
            throw e;
        }
        boolean fifo = "true".equals(attributes.get("FifoTopic"));
        if (fifo != topic.isSequenced()) {
            throw new TopologyException("SNS topic %s of topic '%s' is %s, but the topic is %s"
                    .formatted(
                            topicArn,
                            topic.name(),
                            fifo ? "FIFO" : "standard",
                            topic.isSequenced() ? "sequenced" : "unsequenced"));
        }
    }

    /**
     * Subscribes the queue to the SNS topic with raw delivery and, when the topic has a DLQ, a redrive policy to it
     * (without one, a message SNS cannot deliver to the queue is dropped after Publish reported success). An existing
     * subscription of the queue must have raw delivery; its redrive policy is set if it lacks this one.
     */
    private void subscribe(Topic<?> topic, String topicArn, String queueArn, String queue, @Nullable String dlqArn) {
        requireSns();
        String redrive = dlqArn == null ? null : redrivePolicyOf(dlqArn);
        Map.@Nullable Entry<String, Map<String, String>> existing = rawSubscription(topic, topicArn, queueArn, queue);
        if (existing != null) {
            String arn = existing.getKey();
            if (redrive != null
                    && !dlqArn.equals(redriveTarget(existing.getValue().get("RedrivePolicy")))) {
                SqsErrors.await(
                        aws.sns(c -> c.setSubscriptionAttributes(r -> r.subscriptionArn(arn)
                                .attributeName("RedrivePolicy")
                                .attributeValue(redrive))),
                        timeout,
                        "setting the redrive policy of subscription " + arn + " (queue '" + queue + "')");
            }
            return;
        }
        Map<String, String> attributes = new HashMap<>();
        attributes.put("RawMessageDelivery", "true");
        if (redrive != null) {
            attributes.put("RedrivePolicy", redrive);
        }
        try {
            SqsErrors.await(
                    aws.sns(c -> c.subscribe(r -> r.topicArn(topicArn)
                            .protocol("sqs")
                            .endpoint(queueArn)
                            .attributes(attributes)
                            .returnSubscriptionArn(true))),
                    timeout,
                    "subscribing queue '" + queue + "' to SNS topic " + topicArn);
        } catch (TopologyException e) {
            throw new TopologyException(
                    ("queue '%s' of topic '%s' cannot be subscribed to SNS topic %s with raw delivery and a redrive"
                                    + " policy (%s)")
                            .formatted(queue, topic.name(), topicArn, e.getMessage()),
                    e);
        }
    }

    private static @Nullable String redriveTarget(@Nullable String policy) {
        if (policy == null || policy.isBlank()) {
            return null;
        }
        try {
            return JSON.readTree(policy).path("deadLetterTargetArn").asText(null);
        } catch (Exception e) {
            return null;
        }
    }

    /** An SNS subscription's redrive policy: what SNS cannot deliver goes to {@code dlqArn}. */
    static String redrivePolicyOf(String dlqArn) {
        return JSON.createObjectNode().put("deadLetterTargetArn", dlqArn).toString();
    }

    /**
     * Refuses, before anything is created, a topic whose retries the queues could not keep: a queue retention shorter
     * than twice the longest hold tier, or, on a sequenced topic (whose retries wait in place, holding the message
     * invisible), a tier longer than {@link #MAX_SEQUENCED_WAIT}.
     */
    void checkLimits(Topic<?> topic) {
        Duration longest = HoldRetention.longestTier(topic);
        Duration needed = HoldRetention.minimum(topic).orElse(Duration.ZERO);
        if (config.queueRetention().compareTo(needed) < 0) {
            throw new TopologyException(("topic '%s' has a hold tier of %s, but SQS queueRetention is %s: a retry could"
                            + " outlive its queue's retention and be deleted unseen. Set queueRetention to at least %s"
                            + " (twice the longest tier)")
                    .formatted(
                            topic.name(),
                            DurationText.of(longest),
                            DurationText.of(config.queueRetention()),
                            DurationText.of(needed)));
        }
        if (topic.isSequenced() && longest.compareTo(MAX_SEQUENCED_WAIT) > 0) {
            throw new TopologyException(("sequenced topic '%s' has a hold tier of %s, but on SQS a retry of a sequenced"
                            + " topic waits in place, holding its message invisible, and SQS ends that after 12 h"
                            + " (then another consumer would take the key before the retry). Use tiers of at most %s")
                    .formatted(topic.name(), DurationText.of(longest), DurationText.of(MAX_SEQUENCED_WAIT)));
        }
    }

    /** The longest hold tier of a sequenced topic: SQS's 12 h visibility cap less an hour for the handler. */
    static final Duration MAX_SEQUENCED_WAIT = SqsConfig.MAX_VISIBILITY.minusHours(1);

    private void checkSubscribed(Topic<?> topic, String topicArn, String queueArn, String queueUrl) {
        if (rawSubscription(topic, topicArn, queueArn, queueUrl) == null) {
            throw new TopologyException(
                    "queue %s of topic '%s' is not subscribed to SNS topic %s: subscribe it with raw"
                                    .formatted(queueUrl, topic.name(), topicArn)
                            + " delivery");
        }
    }

    /** A subscription of the queue to the SNS topic and its attributes, or null; it must have raw delivery. */
    private Map.@Nullable Entry<String, Map<String, String>> rawSubscription(
            Topic<?> topic, String topicArn, String queueArn, String queue) {
        for (Subscription s : subscriptions(topicArn)) {
            if (queueArn.equals(s.endpoint())) {
                Map<String, String> attributes = SqsErrors.await(
                                aws.sns(c -> c.getSubscriptionAttributes(r -> r.subscriptionArn(s.subscriptionArn()))),
                                timeout,
                                "checking subscription " + s.subscriptionArn())
                        .attributes();
                if (!"true".equals(attributes.get("RawMessageDelivery"))) {
                    throw new TopologyException(("queue %s of topic '%s' is subscribed to SNS topic %s without raw"
                                    + " delivery: set RawMessageDelivery to true on subscription %s")
                            .formatted(queue, topic.name(), topicArn, s.subscriptionArn()));
                }
                return Map.entry(s.subscriptionArn(), attributes);
            }
        }
        return null;
    }

    private List<Subscription> subscriptions(String topicArn) {
        requireSns();
        List<Subscription> all = new ArrayList<>();
        String next = null;
        do {
            String token = next;
            ListSubscriptionsByTopicResponse page = SqsErrors.await(
                    aws.sns(c ->
                            c.listSubscriptionsByTopic(r -> r.topicArn(topicArn).nextToken(token))),
                    timeout,
                    "listing the subscriptions of SNS topic " + topicArn);
            all.addAll(page.subscriptions());
            next = page.nextToken();
        } while (next != null && !next.isEmpty());
        return all;
    }

    private void requireSns() {
        if (!sns) {
            throw new IllegalStateException("SNS is off (noSns())");
        }
    }

    // ------------------------------------------------------------------ resolution (publish, subscribe)

    /**
     * The URL of a shove queue (a topic's main queue or its dead-letter queue), from the config, the cache or SQS.
     * Fails with a {@link TopologyException} naming the topic when the queue does not exist.
     */
    CompletableFuture<String> queueUrl(Topic<?> topic, String shoveName) {
        boolean fifo = topic.isSequenced();
        String cached = queueUrls.get(key(shoveName, fifo));
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        String name;
        try {
            name = queueName(shoveName, fifo);
        } catch (TopologyException e) {
            return CompletableFuture.failedFuture(e);
        }
        return aws.sqs(c -> c.getQueueUrl(r -> r.queueName(name))).handle((response, failure) -> {
            if (failure == null) {
                queueUrls.put(key(shoveName, fifo), response.queueUrl());
                return response.queueUrl();
            }
            if (SqsErrors.isMissingQueue(failure)) {
                throw new TopologyException(("queue '%s' of topic '%s' does not exist on SQS; declare the"
                                + " topic first with broker.topology().declare(topic)")
                        .formatted(name, topic.name()));
            }
            throw new CompletionException(SqsErrors.unwrap(failure));
        });
    }

    /** The ARN of a topic's SNS topic, from the config, the cache or SNS (listing its topics). */
    CompletableFuture<String> topicArn(Topic<?> topic) {
        String cached = topicArns.get(topic.name());
        if (cached != null) {
            return CompletableFuture.completedFuture(cached);
        }
        String name;
        try {
            name = snsName(topic);
        } catch (TopologyException e) {
            return CompletableFuture.failedFuture(e);
        }
        return findTopic(topic, name, null);
    }

    private CompletableFuture<String> findTopic(Topic<?> topic, String name, @Nullable String token) {
        return aws.sns(c -> c.listTopics(r -> r.nextToken(token))).thenCompose((ListTopicsResponse page) -> {
            for (var t : page.topics()) {
                if (t.topicArn().endsWith(":" + name)) {
                    topicArns.put(topic.name(), t.topicArn());
                    return CompletableFuture.completedFuture(t.topicArn());
                }
            }
            if (page.nextToken() != null && !page.nextToken().isEmpty()) {
                return findTopic(topic, name, page.nextToken());
            }
            return CompletableFuture.failedFuture(new TopologyException(("SNS topic '%s' of topic '%s' does not"
                            + " exist; declare the topic first with broker.topology().declare(topic)")
                    .formatted(name, topic.name())));
        });
    }

    /** Forgets what is known of a topic's objects, so that the next use looks them up again (they were deleted). */
    void forget(Topic<?> topic) {
        if (!config.topicArns().containsKey(topic.name())) {
            topicArns.remove(topic.name());
        }
        for (String name : List.of(topic.name(), topic.dlq().orElse(topic.name()))) {
            if (!config.queueUrls().containsKey(name)) {
                queueUrls.remove(key(name, topic.isSequenced()));
            }
        }
    }

    // ------------------------------------------------------------------ broadcast subscribers

    /** Creates a queue for one broadcast subscriber and subscribes it to the topic with raw delivery. */
    SubscriberQueue createSubscriberQueue(Topic<?> topic) {
        String topicArn = SqsErrors.await(topicArn(topic), timeout, "finding SNS topic of '" + topic.name() + "'");
        byte[] random = new byte[5];
        ThreadLocalRandom.current().nextBytes(random);
        String name = queueName(subscriberPrefix(topic) + HexFormat.of().formatHex(random), false);
        String url = SqsErrors.await(
                        aws.sqs(c -> c.createQueue(r -> r.queueName(name)
                                .tags(Map.of(
                                        TAG_BROADCAST,
                                        topic.name(),
                                        TAG_TOUCHED,
                                        Long.toString(System.currentTimeMillis()))))),
                        timeout,
                        "creating broadcast queue '" + name + "'")
                .queueUrl();
        String arn = attributes(url, "reading broadcast queue '" + name + "'").get("QueueArn");
        SqsErrors.await(
                aws.sqs(c -> c.setQueueAttributes(r -> r.queueUrl(url)
                        .attributesWithStrings(
                                Map.of(QueueAttributeName.POLICY.toString(), queuePolicy(arn, topicArn))))),
                timeout,
                "setting the policy of broadcast queue '" + name + "'");
        String subscription = SqsErrors.await(
                        aws.sns(c -> c.subscribe(r -> r.topicArn(topicArn)
                                .protocol("sqs")
                                .endpoint(arn)
                                .attributes(Map.of("RawMessageDelivery", "true"))
                                .returnSubscriptionArn(true))),
                        timeout,
                        "subscribing broadcast queue '" + name + "' to " + topicArn)
                .subscriptionArn();
        return new SubscriberQueue(name, url, arn, subscription);
    }

    private static String subscriberPrefix(Topic<?> topic) {
        return topic.name() + "-bc-";
    }

    /** Unsubscribes and deletes a broadcast subscriber's queue; failures are logged. */
    void deleteSubscriberQueue(SubscriberQueue queue) {
        try {
            SqsErrors.await(
                    aws.sns(c -> c.unsubscribe(r -> r.subscriptionArn(queue.subscriptionArn()))),
                    timeout,
                    "unsubscribing broadcast queue '" + queue.name() + "'");
        } catch (RuntimeException e) {
            log.warn("unsubscribing broadcast queue '{}' failed: {}", queue.name(), e.getMessage());
        }
        try {
            SqsErrors.await(
                    aws.sqs(c -> c.deleteQueue(r -> r.queueUrl(queue.url()))),
                    timeout,
                    "deleting broadcast queue '" + queue.name() + "'");
        } catch (RuntimeException e) {
            if (!SqsErrors.isMissingQueue(e.getCause() == null ? e : e.getCause())) {
                log.warn("deleting broadcast queue '{}' failed: {}", queue.name(), e.getMessage());
            }
        }
    }

    /** Marks a broadcast subscriber's queue as alive now. */
    CompletableFuture<?> touch(SubscriberQueue queue) {
        return aws.sqs(c -> c.tagQueue(
                r -> r.queueUrl(queue.url()).tags(Map.of(TAG_TOUCHED, Long.toString(System.currentTimeMillis())))));
    }

    /**
     * Deletes the queues of a broadcast topic's subscribers that stopped touching them more than the expiry ago: their
     * subscriber died without removing them. Best effort; failures are logged.
     */
    void reap(Topic<?> topic) {
        try {
            String prefix = queueName(subscriberPrefix(topic), false);
            long now = System.currentTimeMillis();
            long expiry = config.broadcastQueueExpiry().toMillis();
            List<String> urls = SqsErrors.await(
                            aws.sqs(c ->
                                    c.listQueues(r -> r.queueNamePrefix(prefix).maxResults(1000))),
                            timeout,
                            "listing the broadcast queues of '" + topic.name() + "'")
                    .queueUrls();
            List<Subscription> subscriptions = null;
            for (String url : urls) {
                Map<String, String> tags = SqsErrors.await(
                                aws.sqs(c -> c.listQueueTags(r -> r.queueUrl(url))),
                                timeout,
                                "reading the tags of " + url)
                        .tags();
                long touched;
                try {
                    touched = Long.parseLong(tags.getOrDefault(TAG_TOUCHED, "0"));
                } catch (NumberFormatException e) {
                    touched = 0;
                }
                if (!topic.name().equals(tags.get(TAG_BROADCAST)) || now - touched <= expiry) {
                    continue;
                }
                String arn = attributes(url, "reading " + url).get("QueueArn");
                if (subscriptions == null) {
                    subscriptions = subscriptions(SqsErrors.await(topicArn(topic), timeout, "finding SNS topic"));
                }
                for (Subscription s : subscriptions) {
                    if (arn.equals(s.endpoint())) {
                        SqsErrors.await(
                                aws.sns(c -> c.unsubscribe(r -> r.subscriptionArn(s.subscriptionArn()))),
                                timeout,
                                "unsubscribing " + url);
                    }
                }
                SqsErrors.await(aws.sqs(c -> c.deleteQueue(r -> r.queueUrl(url))), timeout, "deleting " + url);
                log.info(
                        "deleted broadcast queue {} of topic '{}': its subscriber stopped touching it {} ms ago (it"
                                + " died without removing it)",
                        url,
                        topic.name(),
                        now - touched);
            }
        } catch (RuntimeException e) {
            log.warn(
                    "removing dead subscribers' queues of broadcast topic '{}' failed: {}",
                    topic.name(),
                    e.getMessage());
        }
    }
}
