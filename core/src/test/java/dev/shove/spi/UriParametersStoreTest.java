package dev.shove.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class UriParametersStoreTest {

    private final List<Object> received = new ArrayList<>();

    private void set(Path file, String password) {
        received.add(file);
        received.add(password);
    }

    @Test
    @DisplayName("a store's file and password go to the setter together")
    void fileAndPassword() {
        UriParameters p =
                new UriParameters("test URI", Map.of("trustStore", "/etc/ca.p12", "trustStorePassword", "pw"));

        p.store("trustStore", this::set);
        p.finish();

        assertThat(received).containsExactly(Path.of("/etc/ca.p12"), "pw");
    }

    @Test
    @DisplayName("a store without a password gets an empty one")
    void fileWithoutPassword() {
        UriParameters p = new UriParameters("test URI", Map.of("keyStore", "/etc/client.p12"));

        p.store("keyStore", this::set);

        assertThat(received).containsExactly(Path.of("/etc/client.p12"), "");
    }

    @Test
    @DisplayName("no store given: the setter is not called")
    void absent() {
        UriParameters p = new UriParameters("test URI", Map.of());

        p.store("trustStore", this::set);

        assertThat(received).isEmpty();
    }

    @Test
    @DisplayName("a password without its store is refused, naming both settings and never the password")
    void passwordWithoutStore() {
        UriParameters p = new UriParameters("test URI", Map.of("trustStorePassword", "s3cret"));

        assertThatThrownBy(() -> p.store("trustStore", this::set))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("test URI: trustStorePassword is given without trustStore")
                .hasMessageNotContaining("s3cret");
        assertThat(received).isEmpty();
    }
}
