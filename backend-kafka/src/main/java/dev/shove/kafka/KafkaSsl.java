package dev.shove.kafka;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * TLS to the brokers: which certificates to trust, optionally a client certificate (mutual TLS), and hostname
 * verification (on by default). Immutable; each {@code with...} returns a copy; {@code toString()} never shows
 * passwords.
 *
 * <pre>{@code
 * KafkaSsl.ofTruststore(Path.of("/etc/kafka/truststore.p12"), trustPassword)
 *         .withKeystore(Path.of("/etc/kafka/client.p12"), storePassword, keyPassword)
 * }</pre>
 *
 * @since 0.1.0
 */
public final class KafkaSsl {
    private final @Nullable Path truststore;
    private final @Nullable String truststorePassword;
    private final @Nullable Path keystore;
    private final @Nullable String keystorePassword;
    private final @Nullable String keyPassword;
    private final @Nullable String storeType;
    private final boolean hostnameVerification;

    private KafkaSsl(
            @Nullable Path truststore,
            @Nullable String truststorePassword,
            @Nullable Path keystore,
            @Nullable String keystorePassword,
            @Nullable String keyPassword,
            @Nullable String storeType,
            boolean hostnameVerification) {
        this.truststore = truststore;
        this.truststorePassword = truststorePassword;
        this.keystore = keystore;
        this.keystorePassword = keystorePassword;
        this.keyPassword = keyPassword;
        this.storeType = storeType;
        this.hostnameVerification = hostnameVerification;
    }

    /**
     * {@return TLS trusting the JVM's default certificate authorities (enough for brokers with public
     * certificates)}
     */
    public static KafkaSsl ofSystemTruststore() {
        return new KafkaSsl(null, null, null, null, null, null, true);
    }

    /**
     * TLS trusting the certificates in a trust store file (JKS or PKCS12).
     *
     * @param location the trust store file
     * @param password the trust store's password
     * @return the TLS settings
     */
    public static KafkaSsl ofTruststore(Path location, String password) {
        return new KafkaSsl(
                Objects.requireNonNull(location, "location"),
                Objects.requireNonNull(password, "password"),
                null,
                null,
                null,
                null,
                true);
    }

    /**
     * Presents the client certificate of a key store file (mutual TLS).
     *
     * @param location the key store file
     * @param storePassword the key store's password
     * @param keyPassword the password of the key in it
     * @return new settings with the key store; these stay as they are
     */
    public KafkaSsl withKeystore(Path location, String storePassword, String keyPassword) {
        return new KafkaSsl(
                truststore,
                truststorePassword,
                Objects.requireNonNull(location, "location"),
                Objects.requireNonNull(storePassword, "storePassword"),
                Objects.requireNonNull(keyPassword, "keyPassword"),
                storeType,
                hostnameVerification);
    }

    /**
     * The type of both store files (default: the client's default, JKS).
     *
     * @param type e.g. {@code PKCS12} or {@code JKS}
     * @return new settings with that type; these stay as they are
     */
    public KafkaSsl withStoreType(String type) {
        return new KafkaSsl(
                truststore,
                truststorePassword,
                keystore,
                keystorePassword,
                keyPassword,
                Objects.requireNonNull(type, "type"),
                hostnameVerification);
    }

    /**
     * Accepts broker certificates whose host name does not match the address; for test clusters only.
     *
     * @return new settings without host name verification; these stay as they are
     */
    public KafkaSsl withoutHostnameVerification() {
        return new KafkaSsl(truststore, truststorePassword, keystore, keystorePassword, keyPassword, storeType, false);
    }

    /** {@return whether the broker's certificate must match its host name; true unless turned off} */
    public boolean hostnameVerification() {
        return hostnameVerification;
    }

    /** The client properties this TLS setting stands for (without {@code security.protocol}). */
    Map<String, String> properties() {
        Map<String, String> p = new LinkedHashMap<>();
        if (truststore != null && truststorePassword != null) {
            p.put("ssl.truststore.location", truststore.toString());
            p.put("ssl.truststore.password", truststorePassword);
        }
        if (keystore != null && keystorePassword != null && keyPassword != null) {
            p.put("ssl.keystore.location", keystore.toString());
            p.put("ssl.keystore.password", keystorePassword);
            p.put("ssl.key.password", keyPassword);
        }
        if (storeType != null) {
            if (truststore != null) {
                p.put("ssl.truststore.type", storeType);
            }
            if (keystore != null) {
                p.put("ssl.keystore.type", storeType);
            }
        }
        p.put("ssl.endpoint.identification.algorithm", hostnameVerification ? "https" : "");
        return p;
    }

    @Override
    public String toString() {
        return "KafkaSsl[truststore=" + (truststore == null ? "system" : truststore)
                + (keystore == null ? "" : ", keystore=" + keystore)
                + (storeType == null ? "" : ", type=" + storeType)
                + ", hostnameVerification=" + hostnameVerification + ", passwords=[redacted]]";
    }
}
