package dev.shove.rabbitmq;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import dev.shove.spi.QueueStats;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

class ManagementApiTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @DisplayName("queue depth is messages_ready and messages_unacknowledged; extra fields are ignored")
    void parses() throws Exception {
        assertThat(ManagementApi.parseStats(JSON.readTree(
                        "{\"name\":\"orders\",\"messages_ready\":12,\"messages_unacknowledged\":3,\"consumers\":2}")))
                .isEqualTo(new QueueStats(12, 3));
    }

    @Test
    @DisplayName("a queue whose statistics are not collected yet reads as empty")
    void missingFields() throws Exception {
        assertThat(ManagementApi.parseStats(JSON.readTree("{}"))).isEqualTo(new QueueStats(0, 0));
    }

    @Test
    @DisplayName("the API's address in toString and in errors has no user-info; credentials go in the header only")
    void noUserInfoInMessages() throws Exception {
        try (ServerSocket server = new ServerSocket(0, 10, InetAddress.getLoopbackAddress())) {
            Thread.ofVirtual().start(() -> answer(server));
            URI base = URI.create("http://mon:s3cret@127.0.0.1:" + server.getLocalPort());
            ManagementApi api = new ManagementApi(base, "/", "mon", "s3cret", null);
            assertThat(api.base()).hasNoUserInfo();
            assertThat(api.toString()).doesNotContain("s3cret");
            assertThatThrownBy(() -> api.queueStats("refused"))
                    .hasMessageContaining("HTTP 401")
                    .hasMessageContaining("managementCredentials")
                    .hasMessageNotContaining("s3cret")
                    .hasMessageNotContaining("mon@");
            assertThatThrownBy(() -> api.queueStats("broken"))
                    .hasMessageContaining("HTTP 500")
                    .hasMessageNotContaining("s3cret");
        }
    }

    /** A tiny HTTP server: 401 for the queue "refused", 500 for any other, until the socket closes. */
    private static void answer(ServerSocket server) {
        while (!server.isClosed()) {
            try (Socket socket = server.accept()) {
                BufferedReader in =
                        new BufferedReader(new InputStreamReader(socket.getInputStream(), StandardCharsets.US_ASCII));
                String requestLine = in.readLine();
                for (String line = in.readLine(); line != null && !line.isEmpty(); line = in.readLine()) {
                    // skip the request headers
                }
                String status = requestLine != null && requestLine.contains("/refused")
                        ? "401 Unauthorized"
                        : "500 Internal Server Error";
                OutputStream out = socket.getOutputStream();
                out.write(("HTTP/1.1 " + status + "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                out.flush();
            } catch (java.io.IOException e) {
                return;
            }
        }
    }
}
