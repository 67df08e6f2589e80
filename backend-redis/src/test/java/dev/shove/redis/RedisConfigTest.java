package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class RedisConfigTest {

    @Test
    @DisplayName("ofDefaults is a local Redis with every default")
    void defaults() {
        RedisConfig config = RedisConfig.ofDefaults();
        assertThat(config.isCluster()).isFalse();
        assertThat(config.redactedUri()).isEqualTo("redis://localhost:6379");
        assertThat(config.keyPrefix()).isEqualTo(RedisConfig.DEFAULT_KEY_PREFIX);
        assertThat(config.blockTimeout()).isEqualTo(RedisConfig.DEFAULT_BLOCK_TIMEOUT);
        assertThat(config.responseTimeout()).isEqualTo(RedisConfig.DEFAULT_RESPONSE_TIMEOUT);
        assertThat(config.ackBatch()).isEqualTo(RedisConfig.DEFAULT_ACK_BATCH);
        assertThat(config.trim("orders")).isEmpty();
    }

    @Test
    @DisplayName("a URI gives user, password, TLS, port and database; toString never shows the password")
    void parsesUri() {
        RedisConfig config = RedisConfig.of("rediss://app:p%40ss@redis.internal:6380/3");
        assertThat(config.isTls()).isTrue();
        assertThat(config.username()).contains("app");
        assertThat(config.password()).contains("p@ss");
        assertThat(config.database()).isEqualTo(3);
        assertThat(config.redactedUri()).isEqualTo("rediss://app:****@redis.internal:6380/3");
        assertThat(config.toString()).doesNotContain("p@ss").doesNotContain("p%40ss");
    }

    @Test
    @DisplayName("redis://secret@host is a password for the default user")
    void passwordOnly() {
        RedisConfig config = RedisConfig.of("redis://s3cret@localhost");
        assertThat(config.username()).isEmpty();
        assertThat(config.password()).contains("s3cret");
        assertThat(config.toString()).doesNotContain("s3cret");
    }

    @Test
    @DisplayName("a URI that is not redis:// or rediss:// is refused without showing its password")
    void refusesOtherSchemes() {
        assertThatThrownBy(() -> RedisConfig.of("http://user:hunter2@localhost"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("redis://")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    @DisplayName("the response timeout must exceed the blocking read window by a second")
    void responseTimeoutExceedsBlock() {
        assertThatThrownBy(() -> RedisConfig.builder("redis://localhost")
                        .blockTimeout(Duration.ofSeconds(5))
                        .responseTimeout(Duration.ofSeconds(5))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("responseTimeout")
                .hasMessageContaining("blockTimeout");
        assertThat(RedisConfig.builder("redis://localhost")
                        .blockTimeout(Duration.ofSeconds(5))
                        .responseTimeout(Duration.ofSeconds(6))
                        .build()
                        .blockTimeout())
                .isEqualTo(Duration.ofSeconds(5));
    }

    @Test
    @DisplayName("each setter checks its value at once, naming the setting, its range and the value")
    void settersCheckValues() {
        RedisConfig.Builder b = RedisConfig.builder("redis://localhost");
        assertThatThrownBy(() -> b.ackBatch(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Redis ackBatch must be between 1 and 10000, was 0");
        assertThatThrownBy(() -> b.connectTimeout(Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("connectTimeout");
        assertThatThrownBy(() -> b.keyPrefix("a{b"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefix");
        assertThatThrownBy(() -> RedisTrim.maxLen(0))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxLen");
    }

    @Test
    @DisplayName("claimIdle must cover three lease renewals; without it, the handler timeout is used, never less")
    void claimIdle() {
        assertThatThrownBy(() -> RedisConfig.builder("redis://localhost")
                        .leaseRenewal(Duration.ofSeconds(5))
                        .claimIdle(Duration.ofSeconds(10))
                        .build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("claimIdle");
        RedisConfig config = RedisConfig.ofDefaults();
        assertThat(config.claimIdleFor(Duration.ofSeconds(60))).isEqualTo(Duration.ofSeconds(60));
        assertThat(config.claimIdleFor(Duration.ofSeconds(1))).isEqualTo(Duration.ofSeconds(15));
        assertThat(config.claimIdleFor(null)).isEqualTo(Duration.ofSeconds(30));
    }

    @Test
    @DisplayName("a cluster config takes several seeds and refuses a database")
    void cluster() {
        RedisConfig config = RedisConfig.ofCluster("redis://a:7000", "redis://b:7001");
        assertThat(config.isCluster()).isTrue();
        assertThat(config.redactedUri()).isEqualTo("redis://a:7000,redis://b:7001");
        assertThatThrownBy(() -> RedisConfig.ofCluster("redis://a:7000/2"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("database");
    }

    @Test
    @DisplayName("toBuilder makes a variant; a trim of one topic wins over the default trim")
    void toBuilderAndTrims() {
        RedisConfig base = RedisConfig.builder("redis://localhost")
                .trim(RedisTrim.maxLen(1000))
                .build();
        RedisConfig variant = base.toBuilder()
                .trim("audit", RedisTrim.maxAge(Duration.ofDays(3)))
                .build();
        assertThat(base.trim("audit")).contains(RedisTrim.maxLen(1000));
        assertThat(variant.trim("audit")).contains(RedisTrim.maxAge(Duration.ofDays(3)));
        assertThat(variant.trim("orders")).contains(RedisTrim.maxLen(1000));
    }

    @Test
    @DisplayName("Redis 6.2 or newer is accepted at connect, older is refused")
    void versionCheck() {
        assertThat(RedisTransport.atLeast("7.0.15", RedisConfig.MIN_VERSION)).isTrue();
        assertThat(RedisTransport.atLeast("6.2.0", RedisConfig.MIN_VERSION)).isTrue();
        assertThat(RedisTransport.atLeast("6.0.16", RedisConfig.MIN_VERSION)).isFalse();
        assertThat(RedisTransport.atLeast("5.0.7", RedisConfig.MIN_VERSION)).isFalse();
    }
}
