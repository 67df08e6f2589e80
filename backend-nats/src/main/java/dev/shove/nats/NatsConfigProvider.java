package dev.shove.nats;

import dev.shove.BrokerConfig;
import dev.shove.spi.BrokerConfigProvider;
import dev.shove.spi.UriParameters;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code nats://[user:password@]host:port[,host:port...]?settings} URIs into a {@link NatsConfig}; found by
 * {@link dev.shove.BrokerConfig#fromUri} through {@link java.util.ServiceLoader}. User info is a user and password, or
 * (without a colon) a token, as in the NATS tools. The settings are the builder's, by name: {@code connectionName},
 * {@code connectTimeout}, {@code reconnectWait}, {@code apiTimeout}, {@code ackWait}, {@code maxAckPending}, {@code
 * storage} ({@code file} or {@code memory}), {@code replicas}, {@code streamMaxAge} ({@code none} for no limit), {@code
 * deadLetterMaxAge} ({@code none}, the default, for no limit), {@code streamMaxMessages}, {@code duplicateWindow}, {@code shardLease}; authentication as {@code password} (replacing the
 * URI's, e.g. as {@code password_file}), {@code token}, {@code nkeySeed} or {@code credentialsFile}; TLS as {@code
 * tls=true} (the JVM's trust store), {@code trustStore} with {@code trustStorePassword}, {@code keyStore} with {@code
 * keyStorePassword}, and {@code tlsHostnameVerification=false}.
 *
 * @since 0.1.0
 */
public final class NatsConfigProvider implements BrokerConfigProvider {

    /** Called by {@link java.util.ServiceLoader}. */
    public NatsConfigProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of("nats");
    }

    @Override
    public BrokerConfig<?> fromUri(URI uri) {
        String authority = uri.getRawAuthority();
        String userInfo = null;
        if (authority != null && authority.lastIndexOf('@') >= 0) {
            int at = authority.lastIndexOf('@');
            userInfo = authority.substring(0, at);
            authority = authority.substring(at + 1);
        }
        String what =
                "NATS URI 'nats://" + (userInfo == null ? "" : "****@") + (authority == null ? "" : authority) + "'";
        if (authority == null || authority.isBlank()) {
            throw new IllegalArgumentException(what + " names no server; expected nats://host:port[,host:port...]");
        }
        UriParameters p = UriParameters.ofQuery(what, uri.getRawQuery());
        boolean tls = Boolean.TRUE.equals(p.bool("tls"));
        StringBuilder servers = new StringBuilder();
        for (String server : authority.split(",")) {
            if (!server.isBlank()) {
                servers.append(servers.isEmpty() ? "" : ",")
                        .append(tls ? "tls://" : "nats://")
                        .append(server.trim());
            }
        }
        NatsConfig.Builder b = NatsConfig.builder(servers.toString());
        String password = p.string("password");
        if (userInfo != null && !userInfo.isEmpty()) {
            int colon = userInfo.indexOf(':');
            if (colon < 0 && password == null) {
                b.token(decode(userInfo));
            } else {
                String user = decode(colon < 0 ? userInfo : userInfo.substring(0, colon));
                b.credentials(user, password != null ? password : decode(userInfo.substring(colon + 1)));
            }
        } else if (password != null) {
            throw new IllegalArgumentException(
                    what + ": password is given without a user; write nats://user@host?password_file=...");
        }
        set(p.string("token"), b::token);
        set(p.string("nkeySeed"), b::nkeySeed);
        String credentialsFile = p.string("credentialsFile");
        if (credentialsFile != null) {
            b.credentialsFile(Path.of(credentialsFile));
        }
        p.store("trustStore", b::trustStore);
        p.store("keyStore", b::keyStore);
        if (Boolean.FALSE.equals(p.bool("tlsHostnameVerification"))) {
            b.noTlsHostnameVerification();
        }
        set(p.string("connectionName"), b::connectionName);
        set(p.duration("connectTimeout"), b::connectTimeout);
        set(p.duration("reconnectWait"), b::reconnectWait);
        set(p.duration("apiTimeout"), b::apiTimeout);
        set(p.duration("ackWait"), b::ackWait);
        set(p.integer("maxAckPending"), b::maxAckPending);
        String storage = p.string("storage");
        if (storage != null) {
            b.storage(
                    switch (storage.toLowerCase(Locale.ROOT)) {
                        case "file" -> NatsConfig.Storage.FILE;
                        case "memory" -> NatsConfig.Storage.MEMORY;
                        default -> throw p.invalid("storage", storage, "file or memory");
                    });
        }
        set(p.integer("replicas"), b::replicas);
        String maxAge = p.string("streamMaxAge");
        if ("none".equalsIgnoreCase(maxAge)) {
            b.noStreamMaxAge();
        } else if (maxAge != null) {
            // read once as text (for "none"); parsed as a duration with the same rules and errors
            b.streamMaxAge(new UriParameters(what, Map.of("streamMaxAge", maxAge)).duration("streamMaxAge"));
        }
        String deadLetterMaxAge = p.string("deadLetterMaxAge");
        if ("none".equalsIgnoreCase(deadLetterMaxAge)) {
            b.noDeadLetterMaxAge();
        } else if (deadLetterMaxAge != null) {
            b.deadLetterMaxAge(
                    new UriParameters(what, Map.of("deadLetterMaxAge", deadLetterMaxAge)).duration("deadLetterMaxAge"));
        }
        String maxMessages = p.string("streamMaxMessages");
        if (maxMessages != null) {
            try {
                b.streamMaxMessages(Long.parseLong(maxMessages));
            } catch (NumberFormatException e) {
                throw p.invalid("streamMaxMessages", maxMessages, "a whole number");
            }
        }
        set(p.duration("duplicateWindow"), b::duplicateWindow);
        set(p.duration("shardLease"), b::shardLease);
        p.finish();
        return b.build();
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    private static <T> void set(@Nullable T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }
}
