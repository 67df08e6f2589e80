package dev.shove.kafka;

import java.util.Map;
import java.util.Objects;

/**
 * SASL authentication with a user name and password: PLAIN or SCRAM (SHA-256, SHA-512). Immutable; {@code toString()}
 * never shows the password. Combine with {@link KafkaSsl} for {@code SASL_SSL}; alone it gives {@code
 * SASL_PLAINTEXT}.
 *
 * <pre>{@code
 * KafkaConfig.builder("broker:9093").sasl(KafkaSasl.scramSha512("svc-orders", secret)).ssl(KafkaSsl.ofSystemTruststore())
 * }</pre>
 *
 * @since 0.1.0
 */
public final class KafkaSasl {
    private final String mechanism;
    private final String loginModule;
    private final String username;
    private final String password;

    private KafkaSasl(String mechanism, String loginModule, String username, String password) {
        this.mechanism = mechanism;
        this.loginModule = loginModule;
        this.username = requireText(username, "username");
        this.password = Objects.requireNonNull(password, "password");
    }

    /**
     * SASL/PLAIN: the password travels as is, so use it with {@link KafkaSsl}.
     *
     * @param username the user name, not blank
     * @param password the password
     * @return the credentials
     */
    public static KafkaSasl plain(String username, String password) {
        return new KafkaSasl("PLAIN", "org.apache.kafka.common.security.plain.PlainLoginModule", username, password);
    }

    /**
     * SASL/SCRAM-SHA-256.
     *
     * @param username the user name, not blank
     * @param password the password
     * @return the credentials
     */
    public static KafkaSasl scramSha256(String username, String password) {
        return new KafkaSasl(
                "SCRAM-SHA-256", "org.apache.kafka.common.security.scram.ScramLoginModule", username, password);
    }

    /**
     * SASL/SCRAM-SHA-512.
     *
     * @param username the user name, not blank
     * @param password the password
     * @return the credentials
     */
    public static KafkaSasl scramSha512(String username, String password) {
        return new KafkaSasl(
                "SCRAM-SHA-512", "org.apache.kafka.common.security.scram.ScramLoginModule", username, password);
    }

    /** {@return the SASL mechanism, e.g. {@code SCRAM-SHA-512}} */
    public String mechanism() {
        return mechanism;
    }

    /** {@return the user name (the password is never shown)} */
    public String username() {
        return username;
    }

    /** The password, for {@link KafkaConfig#redact} only. */
    String password() {
        return password;
    }

    /** The client properties this SASL setting stands for (without {@code security.protocol}). */
    Map<String, String> properties() {
        String jaas =
                loginModule + " required username=\"" + escape(username) + "\" password=\"" + escape(password) + "\";";
        return Map.of("sasl.mechanism", mechanism, "sasl.jaas.config", jaas);
    }

    private static String escape(String value) {
        return value.replace("\\", "\\\\").replace("\"", "\\\"");
    }

    private static String requireText(String value, String what) {
        Objects.requireNonNull(value, what);
        if (value.isBlank()) {
            throw new IllegalArgumentException("Kafka SASL " + what + " must not be blank");
        }
        return value;
    }

    @Override
    public String toString() {
        return "KafkaSasl[" + mechanism + ", username=" + username + ", password=[redacted]]";
    }
}
