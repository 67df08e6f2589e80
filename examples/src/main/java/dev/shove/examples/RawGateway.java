package dev.shove.examples;

import dev.shove.Broker;
import dev.shove.ConsumerGroupConfig;
import dev.shove.DeadMessageMetadata;
import dev.shove.MessageHandler;
import dev.shove.MessageMetadata;
import dev.shove.Outcome;
import dev.shove.SupervisorOutcome;
import dev.shove.Topic;
import dev.shove.memory.InMemory;
import dev.shove.memory.InMemoryConfig;
import java.io.PrintStream;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A gateway for bytes shove did not write: a {@code byte[]} topic delivers a foreign payload exactly as it was
 * published, and publishing a {@code byte[]} writes it unchanged.
 *
 * <p>A legacy system writes binary frames to {@code legacy-frames}: {@code STX}, a record, {@code ETX}, in its own
 * encoding (bytes that are neither JSON nor UTF-8). The gateway checks the framing and forwards each frame, as is, to
 * {@code mainframe-out} with {@link Outcome#reply}; a frame without its {@code ETX} is rejected. A consumer of {@code
 * mainframe-out} compares what arrives with what was sent, byte for byte.
 *
 * <p>Here the frames are published through shove too (there is no other client of the in-memory broker); on a real
 * broker they would come from any producer. Run it with {@code scripts/quickstart.sh RawGateway}.
 */
public final class RawGateway {

    /** How long the example may run before it gives up. */
    public static final Duration TIMEOUT = Duration.ofSeconds(20);

    private static final byte STX = 0x02;
    private static final byte ETX = 0x03;
    private static final HexFormat HEX = HexFormat.ofDelimiter(" ");

    private RawGateway() {}

    // region topics
    /** Frames as the legacy system writes them: {@code byte[]}, so the raw codec (no decoding at all). */
    static final Topic<byte[]> LEGACY_FRAMES = Topic.builder("legacy-frames", byte[].class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();

    static final Topic<byte[]> MAINFRAME_OUT = Topic.builder("mainframe-out", byte[].class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq()
            .build();
    // endregion topics

    // region gateway
    /** Forwards well-framed bytes unchanged; rejects the others. */
    static final class Gateway implements MessageHandler<byte[], Wire> {
        @Override
        public Outcome handle(byte[] frame, MessageMetadata meta, Wire wire) {
            if (frame.length < 2 || frame[0] != STX || frame[frame.length - 1] != ETX) {
                return Outcome.reject("not an STX..ETX frame");
            }
            wire.print("gateway  ", frame, "forwarded as is");
            return Outcome.reply(MAINFRAME_OUT, frame); // the same bytes, published unchanged
        }

        @Override
        public void handleDead(byte[] frame, DeadMessageMetadata meta, Wire wire) {
            wire.print("dead     ", frame, meta.reason());
            wire.rejected().add(frame);
        }
    }
    // endregion gateway

    /**
     * The context: where to print, and what arrived downstream or was rejected. Thread-safe.
     *
     * @param out where to print
     * @param received the frames that arrived on {@code mainframe-out}
     * @param rejected the frames that reached handleDead
     */
    record Wire(PrintStream out, List<byte[]> received, List<byte[]> rejected) {
        Wire(PrintStream out) {
            this(out, new CopyOnWriteArrayList<>(), new CopyOnWriteArrayList<>());
        }

        synchronized void print(String who, byte[] frame, String what) {
            out.printf("%s [%s] %s%n", who, HEX.formatHex(frame), what);
        }
    }

    /** Runs the example; exits 0 when every well-framed frame arrived unchanged and the broken one was rejected. */
    public static void main(String[] args) {
        Result result = run(System.out, TIMEOUT);
        System.exit(result.problems().isEmpty() ? 0 : 1);
    }

    /** Publishes three frames and runs the gateway and the downstream consumer until all three reached their end. */
    public static Result run(PrintStream out, Duration timeout) {
        // Two framed records with NUL separators and bytes that are not UTF-8 (0xc1, 0xff); then one without its ETX
        List<byte[]> sent = List.of(
                HEX.parseHex("02 4f 52 44 45 52 00 34 32 20 c3 a9 ff 03"),
                HEX.parseHex("02 c1 c2 c3 00 00 01 03"),
                HEX.parseHex("02 4f 52 44 45 52 00 34 33"));
        Wire wire = new Wire(out);
        SupervisorOutcome outcome;
        try (Broker<InMemory> broker = Broker.connect(InMemoryConfig.ofDefaults())) {
            var group = broker.consumerGroup().withContext(wire);
            var onePrefetch = ConsumerGroupConfig.builder().prefetch(1).build();
            group.register(LEGACY_FRAMES, onePrefetch, Gateway::new);
            group.register(MAINFRAME_OUT, onePrefetch, () -> (frame, meta, w) -> {
                w.print("received ", frame, "on " + meta.topic());
                w.received().add(frame);
                return Outcome.ack();
            });
            group.start();
            for (byte[] frame : sent) {
                wire.print("legacy   ", frame, "published");
                broker.publisher().publish(LEGACY_FRAMES, frame);
            }
            long deadline = System.nanoTime() + timeout.toNanos();
            while (wire.received().size() + wire.rejected().size() < sent.size() && System.nanoTime() - deadline < 0) {
                try {
                    Thread.sleep(Duration.ofMillis(5));
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
            outcome = group.stop(Duration.ofSeconds(5));
        }
        Result result = new Result(sent, List.copyOf(wire.received()), List.copyOf(wire.rejected()), outcome);
        List<String> problems = result.problems();
        out.println(
                problems.isEmpty()
                        ? "both frames arrived byte for byte; the unframed one was rejected"
                        : "UNEXPECTED: " + problems);
        return result;
    }

    /**
     * What the run recorded.
     *
     * @param sent the frames the legacy system published, in order
     * @param received the frames that arrived on {@code mainframe-out}, in order
     * @param rejected the frames that reached handleDead
     * @param outcome how the group stopped
     */
    public record Result(List<byte[]> sent, List<byte[]> received, List<byte[]> rejected, SupervisorOutcome outcome) {

        /** The frames as hex, for comparison and messages. */
        static List<String> hex(List<byte[]> frames) {
            return frames.stream().map(HEX::formatHex).toList();
        }

        /** What differs from the behaviour in the class comment; empty when the run matched it. */
        public List<String> problems() {
            List<String> problems = new ArrayList<>();
            if (!hex(received).equals(hex(sent.subList(0, 2)))) {
                problems.add("the two framed payloads should arrive unchanged, in order: sent "
                        + hex(sent.subList(0, 2)) + ", received " + hex(received));
            }
            if (!hex(rejected).equals(hex(sent.subList(2, 3)))) {
                problems.add("the unframed payload should be rejected, rejected: " + hex(rejected));
            }
            if (!outcome.isClean()) {
                problems.add("the group should stop cleanly, ended with " + outcome);
            }
            return problems;
        }
    }
}
