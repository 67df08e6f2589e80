package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** Servers read from broker URIs: host and protocol, the settings that matter, and no secret anywhere. */
class ServerTest {
    private static JsonNode server(String uri) {
        return Documents.valid(AsyncApi.builder()
                        .title("servers")
                        .version("1.0.0")
                        .server("prod", uri)
                        .topics(Fixtures.ORDERS))
                .at("/servers/prod");
    }

    @Test
    @DisplayName("each scheme gives its protocol and host")
    void protocols() {
        assertThat(server("kafka://k1:9092,k2:9092").toString())
                .isEqualTo("{\"host\":\"k1:9092,k2:9092\",\"protocol\":\"kafka\"}");
        assertThat(server("amqps://rabbit:5671").path("protocol").asText()).isEqualTo("amqps");
        assertThat(server("redis://redis:6379/0").path("host").asText()).isEqualTo("redis:6379");
        assertThat(server("rediss://redis:6380").path("protocol").asText()).isEqualTo("redis");
        assertThat(server("nats://nats:4222").path("protocol").asText()).isEqualTo("nats");
        assertThat(server("memory:").path("host").asText()).isEqualTo("in-process");
        assertThat(server("sqs://eu-west-1?endpoint=http://localhost:4566")
                        .path("host")
                        .asText())
                .isEqualTo("localhost:4566");
    }

    @Test
    @DisplayName("no user, password or other secret of the URI reaches the document")
    void noSecrets() {
        AsyncApi api = AsyncApi.builder()
                .title("servers")
                .version("1.0.0")
                .server("rabbit", "amqp://app:s3cr3t-amqp@rabbit:5672/prod?password=s3cr3t-query")
                .server(
                        "kafka",
                        "kafka://k1:9093?ssl=true&sasl.mechanism=PLAIN&sasl.username=app&sasl.password=s3cr3t-sasl")
                .server("redis", "redis://default:s3cr3t-redis@redis:6379")
                .server("aws", "sqs://eu-west-1?endpoint=http://key:s3cr3t-aws@localhost:4566")
                .topics(Fixtures.ORDERS)
                .build();
        Documents.valid(api);
        assertThat(api.toJson() + api.toYaml() + api)
                .doesNotContain("s3cr3t")
                .doesNotContain("app:")
                .contains("rabbit:5672");
    }

    @Test
    @DisplayName("a URI shove cannot run on is refused, naming the server and the schemes, without the password")
    void unknownScheme() {
        assertThatThrownBy(() -> AsyncApi.builder().server("prod", "mqtt://user:s3cr3t@broker:1883"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("server 'prod'")
                .hasMessageContaining("kafka://")
                .hasMessageNotContaining("s3cr3t");
        assertThatThrownBy(() -> AsyncApi.builder().server("prod", "localhost:9092?x"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("server 'prod'");
    }

    @Test
    @DisplayName("a setting the document reads is checked, naming it and its value")
    void badSetting() {
        assertThatThrownBy(() -> AsyncApi.builder().server("prod", "kafka://k1:9092?partitions=0"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("partitions must be a whole number of at least 1, was '0'");
        assertThatThrownBy(() -> AsyncApi.builder().server("prod", "kafka://?partitions=3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("names no host");
        assertThatThrownBy(() -> AsyncApi.builder().server("prod", "sqs:"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("region");
    }

    @Test
    @DisplayName("a server's name must be usable as a reference, and given once")
    void names() {
        assertThatThrownBy(() -> AsyncApi.builder().server("prod/eu", "memory:"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("server name 'prod/eu'");
        assertThatThrownBy(() -> AsyncApi.builder().server("prod", "memory:").server("prod", "kafka://k:9092"))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("server 'prod' is already given");
    }

    @Test
    @DisplayName("a server's description and an AMQP virtual host are written")
    void descriptionAndVirtualHost() {
        JsonNode doc = Documents.valid(AsyncApi.builder()
                .title("servers")
                .version("1.0.0")
                .server("prod", "amqp://rabbit/%2Fshop", "the production RabbitMQ")
                .topics(Fixtures.ORDERS));
        assertThat(doc.at("/servers/prod/description").asText()).isEqualTo("the production RabbitMQ");
        assertThat(doc.at("/servers/prod/pathname").asText()).isEqualTo("/%2Fshop");
        assertThat(doc.at("/channels/orders/bindings/amqp/queue/vhost").asText())
                .isEqualTo("/shop");
    }
}
