package dev.shove;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.shove.spi.BrokerConfigProvider;
import dev.shove.spi.Transport;
import dev.shove.spi.TransportContext;
import dev.shove.spi.UriParameters;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BrokerUrisTest {

    /** What the test provider read. */
    record TestConfig(String address, int size, Duration delay, String secret) implements BrokerConfig<Object> {
        @Override
        public Transport open(TransportContext context) {
            throw new UnsupportedOperationException("a test config opens nothing");
        }
    }

    /** The provider of {@code test:} URIs, registered for these tests in META-INF/services. */
    public static final class TestProvider implements BrokerConfigProvider {
        public TestProvider() {}

        @Override
        public Set<String> schemes() {
            return Set.of("test");
        }

        @Override
        public BrokerConfig<?> fromUri(URI uri) {
            UriParameters p = UriParameters.ofQuery("test URI", uri.getRawQuery());
            Integer size = p.integer("size");
            Duration wait = p.duration("wait");
            String secret = p.string("secret");
            p.finish();
            return new TestConfig(
                    uri.getRawAuthority() == null ? "" : uri.getRawAuthority(),
                    size == null ? 0 : size,
                    wait == null ? Duration.ZERO : wait,
                    secret == null ? "" : secret);
        }
    }

    @Test
    @DisplayName("a URI goes to the provider of its scheme, with its settings")
    void byScheme() {
        assertThat(BrokerConfig.fromUri("test://host:1?size=3&wait=250ms"))
                .isEqualTo(new TestConfig("host:1", 3, Duration.ofMillis(250), ""));
    }

    @Test
    @DisplayName("a URI without an address may be written test:, test://, test:?size=1 or test://?size=1")
    void withoutAddress() {
        TestConfig none = new TestConfig("", 0, Duration.ZERO, "");
        TestConfig sized = new TestConfig("", 1, Duration.ZERO, "");
        assertThat(BrokerConfig.fromUri("test:")).isEqualTo(none);
        assertThat(BrokerConfig.fromUri("test://")).isEqualTo(none);
        assertThat(BrokerConfig.fromUri("test:?size=1")).isEqualTo(sized);
        assertThat(BrokerConfig.fromUri("test://?size=1")).isEqualTo(sized);
    }

    @Test
    @DisplayName("an unknown scheme names the schemes found and the module to add")
    void unknownScheme() {
        assertThatThrownBy(() -> BrokerConfig.fromUri("nats://localhost:4222"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("'nats:'")
                .hasMessageContaining("[test]")
                .hasMessageContaining("shove-backend-nats");
    }

    @Test
    @DisplayName("a mistyped scheme suggests the nearest known one instead of a module named after the typo")
    void mistypedScheme() {
        assertThatThrownBy(() -> BrokerConfig.fromUri("amqq://guest:guest@localhost"))
                .hasMessageContaining("'amqq:'")
                .hasMessageContaining("did you mean amqp:?")
                .hasMessageContaining("shove-backend-rabbitmq")
                .message()
                .doesNotContain("shove-backend-amqq")
                .doesNotContain("guest:guest");
        assertThatThrownBy(() -> BrokerConfig.fromUri("tset://h")).hasMessageContaining("did you mean test:?");
        assertThatThrownBy(() -> BrokerConfig.fromUri("zookeeper://h"))
                .hasMessageContaining("shove's backends read [")
                .message()
                .doesNotContain("did you mean");
    }

    @Test
    @DisplayName("a space in a URI's setting names the setting and how to write it")
    void illegalCharacterNamesTheSetting() {
        assertThatThrownBy(() -> BrokerConfig.fromUri("test://h?size=3&secret=two words"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("the value of setting 'secret' holds a space")
                .hasMessageContaining("%20")
                .message()
                .doesNotContain("two words");
    }

    @Test
    @DisplayName("an unknown setting names it and the accepted ones")
    void unknownSetting() {
        assertThatThrownBy(() -> BrokerConfig.fromUri("test://h?sise=3"))
                .hasMessageContaining("unknown parameter(s) [sise]")
                .hasMessageContaining("accepted: [secret, size, wait]");
    }

    @Test
    @DisplayName("a value that does not parse names the setting, the value and what is accepted")
    void badValue() {
        assertThatThrownBy(() -> BrokerConfig.fromUri("test://h?wait=soon"))
                .hasMessageContaining("parameter 'wait' is 'soon'; expected a duration such as 500ms");
        assertThatThrownBy(() -> BrokerConfig.fromUri("test://h?size=many"))
                .hasMessageContaining("parameter 'size' is 'many'; expected a whole number");
    }

    @Test
    @DisplayName("a setting given as <name>_file is read from that file, trimmed")
    void fromFile(@TempDir Path dir) throws IOException {
        Path file = Files.writeString(dir.resolve("secret"), "  s3cret\n");
        assertThat(((TestConfig) BrokerConfig.fromUri("test://h?secret_file=" + file)).secret())
                .isEqualTo("s3cret");
    }

    @Test
    @DisplayName("properties with a prefix: <prefix>uri names the broker, other entries override its settings")
    void properties() {
        Properties p = new Properties();
        p.setProperty("shove.uri", "test://h?size=1&wait=1s");
        p.setProperty("shove.size", "7");
        p.setProperty("other.size", "9");
        assertThat(BrokerConfig.fromProperties(p, "shove."))
                .isEqualTo(new TestConfig("h", 7, Duration.ofSeconds(1), ""));
    }

    @Test
    @DisplayName("environment variables: <PREFIX>URI and <PREFIX>SETTING in upper case with underscores")
    void environment() {
        assertThat(BrokerUris.fromEnvironment(
                        Map.of("SHOVE_URI", "test://h", "SHOVE_SIZE", "4", "SHOVE_WAIT", "2m", "PATH", "/bin"),
                        "SHOVE_"))
                .isEqualTo(new TestConfig("h", 4, Duration.ofMinutes(2), ""));
    }

    @Test
    @DisplayName(
            "environment variables of shove's own tools (the CLI's, the test kit's, the build's) are not read as settings")
    void environmentIgnoresToolVariables() {
        Map<String, String> env = new java.util.HashMap<>(Map.of("SHOVE_URI", "test://h", "SHOVE_SIZE", "4"));
        BrokerUris.TOOL_VARIABLES.forEach(name -> env.put(name, "memory:"));
        assertThat(env).containsKeys("SHOVE_BROKER_URI", "SHOVE_TEST_BROKER_URI", "SHOVE_IT_REQUIRED");
        assertThat(BrokerUris.fromEnvironment(env, "SHOVE_")).isEqualTo(new TestConfig("h", 4, Duration.ZERO, ""));
    }

    @Test
    @DisplayName("an unknown setting from the environment names the variable it came from")
    void environmentNamesTheVariable() {
        assertThatThrownBy(() -> BrokerUris.fromEnvironment(
                        Map.of("SHOVE_URI", "test://h", "SHOVE_SIZ", "4", "SHOVE_BROKER_URI", "memory:"), "SHOVE_"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("[siz]")
                .hasMessageContaining("SHOVE_SIZ as siz")
                .message()
                .doesNotContain("SHOVE_BROKER_URI as");
    }

    @Test
    @DisplayName("variable names become setting names: camel case, __ for a dot, _FILE kept")
    void settingNames() {
        assertThat(BrokerUris.settingName("COMMIT_INTERVAL")).isEqualTo("commitInterval");
        assertThat(BrokerUris.settingName("CLIENT__FETCH_MIN_BYTES")).isEqualTo("client.fetchMinBytes");
        assertThat(BrokerUris.settingName("SASL__PASSWORD_FILE")).isEqualTo("sasl.password_file");
        assertThat(BrokerUris.settingName("URI")).isEqualTo("uri");
    }

    @Test
    @DisplayName("without a uri setting, the error says what to set")
    void missingUri() {
        assertThatThrownBy(() -> BrokerConfig.fromProperties(new Properties(), "shove."))
                .hasMessageContaining("'uri' is missing");
    }

    @Test
    @DisplayName("errors about a URI never show its password")
    void redacts() {
        assertThat(BrokerUris.redact("amqp://app:hunter2@rabbit/v")).isEqualTo("amqp://app:****@rabbit/v");
        assertThatThrownBy(() -> BrokerConfig.fromUri("amqp://app:hunter2@rab bit"))
                .message()
                .doesNotContain("hunter2");
    }
}
