package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class PositionJsonTest {
    private final Codec<AuditRecord<JsonNode>> codec = Codec.json(new TypeReference<AuditRecord<JsonNode>>() {});

    @Test
    @DisplayName("every kind of position survives a round trip through an audit record's JSON")
    void positionsSurviveAuditJson() throws Exception {
        List<Position> positions = List.of(
                Position.start(),
                Position.end(),
                Position.sequence(42),
                Position.timestamp(Instant.ofEpochMilli(1_700_000_000_000L)),
                new Position.Captured("orders", 3, 17));
        for (Position position : positions) {
            MessageMetadata metadata = new MessageMetadata(
                    "orders",
                    0,
                    "orders-3@17",
                    false,
                    OptionalInt.empty(),
                    Map.of(),
                    OptionalInt.of(3),
                    OptionalLong.of(17),
                    OptionalLong.empty(),
                    Optional.of(position));
            AuditRecord<JsonNode> record = AuditLog.asJson(
                    new AuditRecord<>("t-1", "orders", Map.of("n", 1), metadata, Outcome.Kind.ACK, 5, Instant.EPOCH));
            AuditRecord<JsonNode> back = codec.decode(codec.encode(record));
            assertThat(back.metadata().position()).as("%s", position).contains(position);
        }
    }
}
