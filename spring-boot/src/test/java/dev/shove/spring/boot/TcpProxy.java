package dev.shove.spring.boot;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * A TCP proxy on a free loopback port to one broker, for tests that make the broker vanish without stopping the shared
 * one: {@link #close()} refuses new connections and cuts every open one.
 */
final class TcpProxy implements AutoCloseable {
    private final ServerSocket server;
    private final String host;
    private final int port;
    private final Set<Socket> sockets = ConcurrentHashMap.newKeySet();

    private TcpProxy(String host, int port) throws IOException {
        this.host = host;
        this.port = port;
        this.server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread.ofPlatform()
                .daemon()
                .name("tcp-proxy-accept-" + server.getLocalPort())
                .start(this::accept);
    }

    static TcpProxy to(String host, int port) throws IOException {
        return new TcpProxy(host, port);
    }

    /** {@return the port clients connect to} */
    int port() {
        return server.getLocalPort();
    }

    private void accept() {
        while (!server.isClosed()) {
            try {
                Socket client = server.accept();
                Socket upstream = new Socket(host, port);
                sockets.add(client);
                sockets.add(upstream);
                pipe(client, upstream);
                pipe(upstream, client);
            } catch (IOException e) {
                // closed, or the broker refused: the client sees its connection end
            }
        }
    }

    private void pipe(Socket from, Socket to) {
        Thread.ofPlatform().daemon().name("tcp-proxy-pipe").start(() -> {
            byte[] buffer = new byte[16 * 1024];
            try (InputStream in = from.getInputStream();
                    OutputStream out = to.getOutputStream()) {
                int n;
                while ((n = in.read(buffer)) >= 0) {
                    out.write(buffer, 0, n);
                    out.flush();
                }
            } catch (IOException e) {
                // one side closed
            } finally {
                closeQuietly(from);
                closeQuietly(to);
            }
        });
    }

    private static void closeQuietly(Socket socket) {
        try {
            socket.close();
        } catch (IOException e) {
            // already closed
        }
    }

    @Override
    public void close() throws IOException {
        server.close();
        sockets.forEach(TcpProxy::closeQuietly);
        sockets.clear();
    }
}
