package dev.shove.redis;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.BrokerConfig;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RedisConfigProviderTest {

    private static RedisConfig config(String uri) {
        return (RedisConfig) BrokerConfig.fromUri(uri);
    }

    @Test
    @DisplayName("redis://host:port/db?settings: the server from the URI, the settings go to the builder by name")
    void settings() {
        RedisConfig c = config("redis://redis.internal:6380/2?keyPrefix=staging:&consumerGroup=billing"
                + "&clientName=orders-svc&connectTimeout=3s&responseTimeout=20s&blockTimeout=1s&ackBatch=50"
                + "&ackLinger=2ms&leaseRenewal=4s&claimIdle=30s&shardLease=6s&holdPoll=50ms&broadcastMaxLen=500");
        assertThat(c.isCluster()).isFalse();
        assertThat(c.endpoints()).containsExactly(new RedisConfig.Endpoint("redis.internal", 6380));
        assertThat(c.database()).isEqualTo(2);
        assertThat(c.isTls()).isFalse();
        assertThat(c.keyPrefix()).isEqualTo("staging:");
        assertThat(c.consumerGroup()).contains("billing");
        assertThat(c.clientName()).contains("orders-svc");
        assertThat(c.connectTimeout()).isEqualTo(Duration.ofSeconds(3));
        assertThat(c.responseTimeout()).isEqualTo(Duration.ofSeconds(20));
        assertThat(c.blockTimeout()).isEqualTo(Duration.ofSeconds(1));
        assertThat(c.ackBatch()).isEqualTo(50);
        assertThat(c.ackLinger()).isEqualTo(Duration.ofMillis(2));
        assertThat(c.leaseRenewal()).isEqualTo(Duration.ofSeconds(4));
        assertThat(c.claimIdle()).contains(Duration.ofSeconds(30));
        assertThat(c.shardLease()).isEqualTo(Duration.ofSeconds(6));
        assertThat(c.holdPoll()).isEqualTo(Duration.ofMillis(50));
        assertThat(c.broadcastMaxLen()).isEqualTo(500);
    }

    @Test
    @DisplayName("a URI without settings is RedisConfig.of(uri)")
    void plain() {
        assertThat(config("redis://localhost:6379").toString())
                .isEqualTo(RedisConfig.of("redis://localhost:6379").toString());
        assertThat(config("redis://localhost").endpoints())
                .containsExactly(new RedisConfig.Endpoint("localhost", 6379));
    }

    @Test
    @DisplayName("maxLen/maxAge trim every topic, maxLen.<topic>/maxAge.<topic> one")
    void trims() {
        RedisConfig c = config("redis://localhost?maxAge=7d&maxLen.orders=1000&maxAge.audit=12h");
        assertThat(c.trim("payments")).contains(RedisTrim.maxAge(Duration.ofDays(7)));
        assertThat(c.trim("orders")).contains(RedisTrim.maxLen(1000));
        assertThat(c.trim("audit")).contains(RedisTrim.maxAge(Duration.ofHours(12)));
        assertThat(config("redis://localhost?maxLen=5000").trim("any")).contains(RedisTrim.maxLen(5000));
        assertThat(config("redis://localhost").trim("any")).isEmpty();
        assertThatThrownBy(() -> config("redis://localhost?maxLen=10&maxAge=1h"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("maxLen and maxAge are both given");
        assertThatThrownBy(() -> config("redis://localhost?maxLen.orders=many"))
                .hasMessageContaining("maxLen.orders")
                .hasMessageContaining("a number of entries");
        assertThatThrownBy(() -> config("redis://localhost?maxAge.orders=soon"))
                .hasMessageContaining("maxAge.orders")
                .hasMessageContaining("a duration");
    }

    @Test
    @DisplayName("several hosts, or cluster=true, are the seeds of a Redis Cluster; the user info goes to every node")
    void cluster() {
        RedisConfig c = config("redis://app:s3cret@node-1:7001,node-2:7002,node-3?maxLen=100");
        assertThat(c.isCluster()).isTrue();
        assertThat(c.endpoints())
                .containsExactly(
                        new RedisConfig.Endpoint("node-1", 7001),
                        new RedisConfig.Endpoint("node-2", 7002),
                        new RedisConfig.Endpoint("node-3", 6379));
        assertThat(c.username()).contains("app");
        assertThat(c.password()).contains("s3cret");
        assertThat(c.toString()).doesNotContain("s3cret");

        RedisConfig one = config("redis://node-1:7001?cluster=true");
        assertThat(one.isCluster()).isTrue();
        assertThat(one.endpoints()).containsExactly(new RedisConfig.Endpoint("node-1", 7001));

        assertThatThrownBy(() -> config("redis://node-1:7001,node-2:7002/3"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("database 0");
    }

    @Test
    @DisplayName("rediss:// is TLS; tls.* settings set the trusted certificates, the client certificate, hostnames")
    void tls() {
        RedisConfig c = config("rediss://redis.internal?tls.trustedCertificates=/etc/redis/ca.pem"
                + "&tls.clientCertificate=/etc/redis/me.pem&tls.clientKey=/etc/redis/me.key&tls.verifyHostname=false");
        assertThat(c.isTls()).isTrue();
        assertThat(c.trustedCertificates()).contains(Path.of("/etc/redis/ca.pem"));
        assertThat(c.clientCertificate()).contains(Path.of("/etc/redis/me.pem"));
        assertThat(c.clientKey()).contains(Path.of("/etc/redis/me.key"));
        assertThat(c.isTlsHostnameVerification()).isFalse();
        assertThat(config("redis://redis.internal?tls=true").isTls()).isTrue();
        assertThatThrownBy(() -> config("rediss://redis.internal?tls.clientCertificate=/etc/redis/me.pem"))
                .hasMessageContaining("tls.clientCertificate and tls.clientKey go together");
    }

    @Test
    @DisplayName("password_file is the password of the user the URI names, or of the default user; never shown")
    void passwordFile(@TempDir Path dir) throws IOException {
        Path secret = Files.writeString(dir.resolve("redis-password"), "hunter2\n");
        RedisConfig acl = config("redis://orders-svc@localhost?password_file=" + secret);
        assertThat(acl.username()).contains("orders-svc");
        assertThat(acl.password()).contains("hunter2");
        assertThat(acl.toString()).doesNotContain("hunter2");

        RedisConfig plain = config("redis://localhost?password_file=" + secret);
        assertThat(plain.username()).isEmpty();
        assertThat(plain.password()).contains("hunter2");

        assertThatThrownBy(() -> config("redis://app:other@localhost?password_file=" + secret))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("give it once")
                .hasMessageNotContaining("other")
                .hasMessageNotContaining("hunter2");
    }

    @Test
    @DisplayName("an unknown setting names the accepted ones; a bad value names the setting; no password is shown")
    void errors() {
        assertThatThrownBy(() -> config("redis://app:s3cret@localhost?keyPrefx=a:"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("keyPrefx")
                .hasMessageContaining("keyPrefix")
                .hasMessageNotContaining("s3cret");
        assertThatThrownBy(() -> config("redis://localhost?ackBatch=lots"))
                .hasMessageContaining("ackBatch")
                .hasMessageContaining("lots");
        assertThatThrownBy(() -> config("redis://localhost?blockTimeout=20s"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("Redis URI");
        assertThatThrownBy(() -> config("redis://app:s3cret@localhost/abc"))
                .hasMessageContaining("database number")
                .hasMessageNotContaining("s3cret");
    }
}
