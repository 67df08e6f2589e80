package dev.shove.rabbitmq;

import dev.shove.BrokerConfig;
import dev.shove.spi.BrokerConfigProvider;
import dev.shove.spi.UriParameters;
import java.net.URI;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code amqp://} and {@code amqps://} URIs with settings into a {@link RabbitMqConfig}; found by {@link
 * dev.shove.BrokerConfig#fromUri} through {@link java.util.ServiceLoader}. The URI without its query is read by
 * {@link RabbitMqConfig#builder(String)}; the settings are the builder's, by name: {@code connectionName}, {@code
 * publishChannels}, {@code publishAttempts}, {@code confirmTimeout}, {@code connectTimeout}, {@code
 * recoveryInterval}, {@code managementApi} (a URL, or {@code false} for none), {@code managementUser} with {@code
 * managementPassword}, {@code transactionalSettlement}, {@code quorumQueues} and {@code tlsHostnameVerification}
 * (booleans), {@code trustStore} with {@code trustStorePassword} (a PKCS12 or JKS file of trusted certificates, for
 * {@code amqps://}), and {@code password} to replace the URI's (as {@code password_file} or {@code
 * trustStorePassword_file} for a secret in a file).
 *
 * @since 0.1.0
 */
public final class RabbitMqConfigProvider implements BrokerConfigProvider {

    /** Called by {@link java.util.ServiceLoader}. */
    public RabbitMqConfigProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of("amqp", "amqps");
    }

    @Override
    public BrokerConfig<?> fromUri(URI uri) {
        String text = uri.toString();
        int q = text.indexOf('?');
        String base = q < 0 ? text : text.substring(0, q);
        String what = "RabbitMQ URI '" + RabbitMqConfig.redact(base) + "'";
        UriParameters p = UriParameters.ofQuery(what, uri.getRawQuery());
        RabbitMqConfig.Builder b = RabbitMqConfig.builder(base);
        String password = p.string("password");
        if (password != null) {
            b.credentials(RabbitMqConfig.builder(base).build().username(), password);
        }
        set(p.string("connectionName"), b::connectionName);
        set(p.integer("publishChannels"), b::publishChannels);
        set(p.integer("publishAttempts"), b::publishAttempts);
        set(p.duration("confirmTimeout"), b::confirmTimeout);
        set(p.duration("connectTimeout"), b::connectTimeout);
        set(p.duration("recoveryInterval"), b::recoveryInterval);
        String management = p.string("managementApi");
        if ("false".equalsIgnoreCase(management)) {
            b.noManagementApi();
        } else if (management != null) {
            b.managementApi(management);
        }
        String managementUser = p.string("managementUser");
        String managementPassword = p.string("managementPassword");
        if (managementUser != null || managementPassword != null) {
            if (managementUser == null || managementPassword == null) {
                throw new IllegalArgumentException(
                        "RabbitMQ URI: managementUser and managementPassword go together (or managementPassword_file)");
            }
            b.managementCredentials(managementUser, managementPassword);
        }
        if (Boolean.TRUE.equals(p.bool("transactionalSettlement"))) {
            b.transactionalSettlement();
        }
        if (Boolean.TRUE.equals(p.bool("quorumQueues"))) {
            b.quorumQueues();
        }
        p.store("trustStore", b::trustStore);
        if (Boolean.FALSE.equals(p.bool("tlsHostnameVerification"))) {
            b.noTlsHostnameVerification();
        }
        p.finish();
        return b.build();
    }

    private static <T> void set(@Nullable T value, Consumer<T> setter) {
        if (value != null) {
            setter.accept(value);
        }
    }
}
