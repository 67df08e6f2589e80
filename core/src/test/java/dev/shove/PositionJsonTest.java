package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class PositionJsonTest {

    static Position[] positions() {
        return new Position[] {
            Position.start(),
            Position.end(),
            Position.sequence(42),
            Position.timestamp(Instant.parse("2026-01-02T03:04:05.678Z")),
            new Position.Captured("orders", -1, 7),
            new Position.Captured("orders", 3, 0)
        };
    }

    @ParameterizedTest
    @MethodSource("positions")
    void positionReadsBackEqual(Position position) throws Exception {
        JsonCodec<Position> codec = JsonCodec.of(Position.class);

        assertThat(codec.decode(codec.encode(position))).isEqualTo(position);
    }

    @Test
    void auditRecordWithAPositionSurvivesTheAuditLogTopic() throws Exception {
        MessageMetadata metadata = new MessageMetadata(
                "orders",
                0,
                "orders#1",
                false,
                OptionalInt.of(1),
                Map.of(),
                OptionalInt.empty(),
                OptionalLong.of(7),
                OptionalLong.of(1),
                Optional.of(new Position.Captured("orders", -1, 7)));
        AuditRecord<JsonNode> record = AuditLog.asJson(
                new AuditRecord<>("t", "orders", Map.of("n", 1), metadata, Outcome.Kind.ACK, 1, Instant.EPOCH));

        AuditRecord<JsonNode> read =
                AuditLog.TOPIC.codec().decode(AuditLog.TOPIC.codec().encode(record));

        assertThat(read.metadata().position()).contains(new Position.Captured("orders", -1, 7));
    }

    @Test
    void unknownKindIsRefused() {
        JsonCodec<Position> codec = JsonCodec.of(Position.class);

        assertThatThrownBy(() -> codec.decode("{\"kind\":\"middle\"}".getBytes()))
                .hasMessageContaining("middle");
    }
}
