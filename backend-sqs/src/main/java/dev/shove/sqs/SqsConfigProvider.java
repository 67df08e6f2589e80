package dev.shove.sqs;

import dev.shove.BrokerConfig;
import dev.shove.spi.BrokerConfigProvider;
import dev.shove.spi.UriParameters;
import java.net.URI;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * Reads {@code sqs://<region>?settings} URIs into an {@link SqsConfig}; found by {@link BrokerConfig#fromUri} through
 * {@link java.util.ServiceLoader}. The host is the region ({@code sqs://eu-west-1}); without one ({@code sqs:}) the
 * SDK's default region chain applies. The settings are the builder's, by name: {@code endpoint}, {@code snsEndpoint},
 * {@code namePrefix}, {@code sns} ({@code false} is {@link SqsConfig.Builder#noSns()}), {@code receiveWait}, {@code
 * visibilityTimeout}, {@code queueRetention}, {@code maxReceiveCount}, {@code maxConnections}, {@code apiCallTimeout}, {@code settleLinger},
 * {@code broadcastQueueExpiry}, {@code queueUrl.<name>} and {@code topicArn.<topic>} for topology created elsewhere,
 * and static credentials as {@code accessKeyId} with {@code secretAccessKey} (and {@code sessionToken}), best as
 * {@code secretAccessKey_file}; without them the SDK's default credentials chain applies.
 *
 * <pre>{@code
 * sqs://us-east-1?endpoint=http://127.0.0.1:4566&accessKeyId=test&secretAccessKey=test
 * sqs://eu-west-1?namePrefix=prod-&receiveWait=10s
 * }</pre>
 *
 * @since 0.1.0
 */
public final class SqsConfigProvider implements BrokerConfigProvider {

    /** Called by {@link java.util.ServiceLoader}. */
    public SqsConfigProvider() {}

    @Override
    public Set<String> schemes() {
        return Set.of("sqs");
    }

    @Override
    public BrokerConfig<?> fromUri(URI uri) {
        String authority = uri.getRawAuthority();
        if (authority != null && authority.contains("@")) {
            throw new IllegalArgumentException("SQS URI: credentials do not go before the region; give them as the"
                    + " accessKeyId and secretAccessKey_file (a file holding the secret key) settings");
        }
        String region = authority == null || authority.isEmpty() ? null : authority;
        String what = "SQS URI 'sqs://" + (region == null ? "" : region) + "'";
        String path = uri.getRawPath();
        if (region != null && region.contains(":") || path != null && !path.isEmpty() && !path.equals("/")) {
            throw new IllegalArgumentException(what + " names a port or a path; expected sqs://<region>?settings, with"
                    + " an emulator or a VPC endpoint as the endpoint setting (endpoint=http://127.0.0.1:4566)");
        }
        UriParameters p = UriParameters.ofQuery(what, uri.getRawQuery());
        SqsConfig.Builder b = SqsConfig.builder();
        try {
            set(region, b::region);
            set(p.string("endpoint"), b::endpoint);
            set(p.string("snsEndpoint"), b::snsEndpoint);
            String accessKeyId = p.string("accessKeyId");
            String secretAccessKey = p.string("secretAccessKey");
            String sessionToken = p.string("sessionToken");
            if (accessKeyId != null || secretAccessKey != null || sessionToken != null) {
                if (accessKeyId == null || secretAccessKey == null) {
                    throw new IllegalArgumentException("accessKeyId and secretAccessKey go together (or"
                            + " secretAccessKey_file); give neither for the SDK's default credentials chain");
                }
                if (sessionToken == null) {
                    b.credentials(accessKeyId, secretAccessKey);
                } else {
                    b.credentials(accessKeyId, secretAccessKey, sessionToken);
                }
            }
            set(p.string("namePrefix"), b::namePrefix);
            if (Boolean.FALSE.equals(p.bool("sns"))) {
                b.noSns();
            }
            set(p.duration("receiveWait"), b::receiveWait);
            set(p.duration("visibilityTimeout"), b::visibilityTimeout);
            set(p.duration("queueRetention"), b::queueRetention);
            set(p.integer("maxReceiveCount"), b::maxReceiveCount);
            set(p.integer("maxConnections"), b::maxConnections);
            set(p.duration("apiCallTimeout"), b::apiCallTimeout);
            set(p.duration("settleLinger"), b::settleLinger);
            set(p.duration("broadcastQueueExpiry"), b::broadcastQueueExpiry);
            for (Map.Entry<String, String> e : p.withPrefix("queueUrl.").entrySet()) {
                b.queueUrl(e.getKey(), e.getValue());
            }
            for (Map.Entry<String, String> e : p.withPrefix("topicArn.").entrySet()) {
                b.topicArn(e.getKey(), e.getValue());
            }
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(
                    e.getMessage().startsWith(what) ? e.getMessage() : what + ": " + e.getMessage());
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
