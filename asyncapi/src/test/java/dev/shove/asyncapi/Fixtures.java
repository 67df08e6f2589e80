package dev.shove.asyncapi;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.core.type.TypeReference;
import dev.shove.Codec;
import dev.shove.SequenceFailure;
import dev.shove.Topic;
import java.math.BigDecimal;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.MonthDay;
import java.time.OffsetDateTime;
import java.time.OffsetTime;
import java.time.Period;
import java.time.Year;
import java.time.YearMonth;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/** Message types and topics the tests describe. */
final class Fixtures {
    private Fixtures() {}

    enum Status {
        NEW,
        PAID,
        @JsonProperty("shipped-out")
        SHIPPED
    }

    record Money(BigDecimal amount, String currency) {}

    record Line(String sku, int quantity, Money price) {}

    record Address(String street, String city, Optional<String> postcode) {}

    /** A record with nested records, an enum, collections, a map, an Optional, a nullable field and java.time. */
    record Order(
            String orderId,
            Status status,
            List<Line> lines,
            Set<String> tags,
            Map<String, Integer> counters,
            Optional<Address> shipTo,
            @Nullable String note,
            Instant placedAt,
            long cents) {}

    /** A plain class read through its getters and public fields, as Jackson reads it. */
    public static final class Customer {
        public String name = "";
        private int visits;
        private String secret = "";

        public int getVisits() {
            return visits;
        }

        public void setVisits(int visits) {
            this.visits = visits;
        }

        @JsonIgnore
        public String getSecret() {
            return secret;
        }

        public void setSecret(String secret) {
            this.secret = secret;
        }
    }

    /** Every java.time type and the other value types Jackson writes in a form of its own. */
    record Times(
            Instant instant,
            LocalDate date,
            LocalDateTime localDateTime,
            LocalTime time,
            OffsetDateTime offsetDateTime,
            ZonedDateTime zonedDateTime,
            OffsetTime offsetTime,
            Year year,
            YearMonth yearMonth,
            MonthDay monthDay,
            Period period,
            ZoneId zone,
            ZoneOffset offset,
            Duration duration,
            UUID id,
            byte[] blob,
            char letter,
            double ratio,
            @Nullable Long maybe) {}

    /** A generic envelope, used as {@code Page<Order>}. */
    record Page<T>(List<T> items, int total, Optional<String> next) {}

    static final Topic<Order> ORDERS = Topic.builder("orders", Order.class)
            .holdQueue(Duration.ofMillis(500))
            .holdQueue(Duration.ofSeconds(30))
            .dlq()
            .build();

    static final Topic<Order> ORDER_EVENTS = Topic.builder("order-events", Order.class)
            .holdQueue(Duration.ofSeconds(5))
            .dlq()
            .sequenced(SequenceFailure.SKIP, Order::orderId)
            .routingShards(4)
            .build();

    static final Topic<Customer> CUSTOMERS =
            Topic.builder("customers", Customer.class).broadcast().build();

    static final Topic<byte[]> FRAMES = Topic.builder("frames", byte[].class)
            .holdQueue(Duration.ofSeconds(1))
            .dlq("frames-dead")
            .build();

    static final Topic<Page<Order>> ORDER_PAGES = Topic.builder(
                    "order-pages", Codec.json(new TypeReference<Page<Order>>() {}))
            .holdQueue(Duration.ofMinutes(2))
            .dlq()
            .build();

    static final Topic<Times> TIMES = Topic.builder("times", Times.class)
            .holdQueue(Duration.ofHours(1))
            .dlq()
            .build();
}
