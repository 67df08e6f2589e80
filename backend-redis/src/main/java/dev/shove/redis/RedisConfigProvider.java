package dev.shove.redis;

import dev.shove.BrokerConfig;
import dev.shove.spi.BrokerConfigProvider;
import dev.shove.spi.UriParameters;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code redis://[[user]:password@]host[:port][/database]?settings} URIs ({@code rediss://} for TLS) into a
 * {@link RedisConfig}; found by {@link BrokerConfig#fromUri} through {@link java.util.ServiceLoader}. Several hosts
 * ({@code redis://node-1:7000,node-2:7000}) or {@code cluster=true} connect to a Redis Cluster through those seeds.
 * The settings are the builder's, by name: {@code keyPrefix}, {@code consumerGroup}, {@code clientName}, {@code
 * connectTimeout}, {@code responseTimeout}, {@code blockTimeout}, {@code ackBatch}, {@code ackLinger}, {@code
 * leaseRenewal}, {@code claimIdle}, {@code shardLease}, {@code holdPoll}, {@code broadcastMaxLen}; trimming as {@code
 * maxLen} or {@code maxAge} for every topic and {@code maxLen.<topic>} or {@code maxAge.<topic>} for one; TLS as
 * {@code tls=true}, {@code tls.trustedCertificates} (a PEM file), {@code tls.clientCertificate} with {@code
 * tls.clientKey}, {@code tls.verifyHostname=false}; and the password as {@code password} (best as {@code
 * password_file}), with the URI's user info naming the ACL user.
 *
 * <pre>{@code
 * redis://localhost:6379?keyPrefix=staging:&maxLen=1000000
 * rediss://orders-svc@redis.internal:6380?password_file=/run/secrets/redis&tls.trustedCertificates=/etc/redis/ca.pem
 * redis://node-1:7000,node-2:7000,node-3:7000?maxAge=7d
 * }</pre>
 *
 * @since 0.1.0
 */
public final class RedisConfigProvider implements BrokerConfigProvider {

    /** Called by {@link java.util.ServiceLoader}. */
    public RedisConfigProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of("redis", "rediss");
    }

    @Override
    public BrokerConfig<?> fromUri(URI uri) {
        String scheme = uri.getScheme().toLowerCase(Locale.ROOT);
        String authority = uri.getRawAuthority();
        String path = uri.getRawPath() == null ? "" : uri.getRawPath();
        String shown = RedisConfig.redact(scheme + "://" + (authority == null ? "" : authority) + path);
        String what = "Redis URI '" + shown + "'";
        if (authority == null || authority.isBlank()) {
            throw new IllegalArgumentException(
                    what + " names no host; expected " + scheme + "://[user:password@]host[:port][/database]");
        }
        UriParameters p = UriParameters.ofQuery(what, uri.getRawQuery());
        try {
            RedisConfig.Builder b = builder(scheme, authority, path, Boolean.TRUE.equals(p.bool("cluster")));
            credentials(b, authority, p.string("password"), what);
            tls(b, p);
            set(p.string("keyPrefix"), b::keyPrefix);
            set(p.string("consumerGroup"), b::consumerGroup);
            set(p.string("clientName"), b::clientName);
            set(p.duration("connectTimeout"), b::connectTimeout);
            set(p.duration("responseTimeout"), b::responseTimeout);
            set(p.duration("blockTimeout"), b::blockTimeout);
            set(p.integer("ackBatch"), b::ackBatch);
            set(p.duration("ackLinger"), b::ackLinger);
            set(p.duration("leaseRenewal"), b::leaseRenewal);
            set(p.duration("claimIdle"), b::claimIdle);
            set(p.duration("shardLease"), b::shardLease);
            set(p.duration("holdPoll"), b::holdPoll);
            set(length(p, "broadcastMaxLen"), b::broadcastMaxLen);
            RedisTrim trim = trim(length(p, "maxLen"), p.duration("maxAge"), "maxLen and maxAge");
            set(trim, b::trim);
            Map<String, String> lengths = p.withPrefix("maxLen.");
            Map<String, String> ages = p.withPrefix("maxAge.");
            for (Map.Entry<String, String> e : lengths.entrySet()) {
                if (ages.containsKey(e.getKey())) {
                    throw new IllegalArgumentException("maxLen." + e.getKey() + " and maxAge." + e.getKey()
                            + " are both given; a topic is trimmed by length or by age");
                }
                b.trim(e.getKey(), RedisTrim.maxLen(parseLength(p, "maxLen." + e.getKey(), e.getValue())));
            }
            for (Map.Entry<String, String> e : ages.entrySet()) {
                b.trim(e.getKey(), RedisTrim.maxAge(parseAge(p, "maxAge." + e.getKey(), e.getValue())));
            }
            p.finish();
            return b.build();
        } catch (IllegalArgumentException e) {
            String message = String.valueOf(e.getMessage());
            throw new IllegalArgumentException(
                    message.startsWith(what) || message.startsWith("Redis URI") ? message : what + ": " + message, e);
        }
    }

    /** One server, or a cluster through every host of the authority; the URI's user info goes with the first. */
    private static RedisConfig.Builder builder(String scheme, String authority, String path, boolean cluster) {
        int at = authority.lastIndexOf('@');
        String userInfo = at < 0 ? "" : authority.substring(0, at + 1);
        String[] hosts = authority.substring(at + 1).split(",", -1);
        if (hosts.length == 1 && !cluster) {
            return RedisConfig.builder(scheme + "://" + authority + path);
        }
        if (!path.isEmpty() && !path.equals("/")) {
            throw new IllegalArgumentException(
                    "a Redis Cluster has only database 0; remove the " + path + " from the URI");
        }
        List<String> seeds = new ArrayList<>(hosts.length);
        for (int i = 0; i < hosts.length; i++) {
            seeds.add(scheme + "://" + (i == 0 ? userInfo : "") + hosts[i]);
        }
        return RedisConfig.clusterBuilder(seeds.toArray(String[]::new));
    }

    /**
     * A {@code password} setting is the password of the user the URI names ({@code redis://orders-svc@host}), or of
     * the default user when it names none; the URI's own user info needs no setting.
     */
    private static void credentials(RedisConfig.Builder b, String authority, @Nullable String password, String what) {
        if (password == null) {
            return;
        }
        int at = authority.lastIndexOf('@');
        String userInfo = at < 0 ? "" : authority.substring(0, at);
        if (userInfo.contains(":")) {
            throw new IllegalArgumentException(
                    what + " gives a password both in the URI and as the password setting; give it once");
        }
        if (userInfo.isEmpty()) {
            b.password(password);
        } else {
            b.credentials(URLDecoder.decode(userInfo, StandardCharsets.UTF_8), password);
        }
    }

    private static void tls(RedisConfig.Builder b, UriParameters p) {
        if (Boolean.TRUE.equals(p.bool("tls"))) {
            b.tls();
        }
        set(p.string("tls.trustedCertificates"), f -> b.tlsTrustedCertificates(Path.of(f)));
        String certificate = p.string("tls.clientCertificate");
        String key = p.string("tls.clientKey");
        if ((certificate == null) != (key == null)) {
            throw new IllegalArgumentException("tls.clientCertificate and tls.clientKey go together (PEM files)");
        }
        if (certificate != null && key != null) {
            b.tlsClientCertificate(Path.of(certificate), Path.of(key));
        }
        if (Boolean.FALSE.equals(p.bool("tls.verifyHostname"))) {
            b.noTlsHostnameVerification();
        }
    }

    private static @Nullable RedisTrim trim(@Nullable Long length, @Nullable Duration age, String names) {
        if (length != null && age != null) {
            throw new IllegalArgumentException(names + " are both given; streams are trimmed by length or by age");
        }
        return length != null ? RedisTrim.maxLen(length) : age != null ? RedisTrim.maxAge(age) : null;
    }

    private static @Nullable Long length(UriParameters p, String name) {
        String value = p.string(name);
        return value == null ? null : parseLength(p, name, value);
    }

    private static long parseLength(UriParameters p, String name, String value) {
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw p.invalid(name, value, "a number of entries");
        }
    }

    private static Duration parseAge(UriParameters p, String name, String value) {
        try {
            Duration age = new UriParameters(name, Map.of("age", value)).duration("age");
            if (age != null) {
                return age;
            }
        } catch (IllegalArgumentException e) {
            // reported below, under the setting's own name
        }
        throw p.invalid(name, value, "a duration such as 7d, 12h or PT12H");
    }

    private static <T> void set(@Nullable T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }
}
