package dev.shove.nats;

import dev.shove.spi.TlsStores;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.UnknownHostException;
import java.security.GeneralSecurityException;
import java.security.KeyManagementException;
import java.security.SecureRandom;
import java.util.HashMap;
import java.util.Map;
import javax.net.ssl.KeyManager;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLContextSpi;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLServerSocketFactory;
import javax.net.ssl.SSLSessionContext;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManager;

/**
 * The TLS context of a connection: from the config's trust and key stores (or its own context, or the JVM's), with the
 * server's host name checked against its certificate unless the config turns that off.
 *
 * <p>Why a wrapping context: jnats opens its TLS socket without an endpoint identification algorithm, so a certificate
 * of any host signed by a trusted authority would be accepted. The wrapper sets {@code HTTPS} identification (RFC 2818
 * host name checks) on every socket the context creates. jnats also resolves a server's host name itself and opens
 * the TLS socket with the address it connected to; the wrapper gives the socket the configured host name back (an
 * address the config's servers resolved to maps to that server's name), so that the certificate is checked against
 * the name the application asked for.
 */
final class NatsTls {
    private NatsTls() {}

    /** The context for {@code config}, which uses TLS. */
    static SSLContext context(NatsConfig config) {
        SSLContext base;
        try {
            base = config.sslContext() != null ? config.sslContext() : fromStores(config);
        } catch (GeneralSecurityException | IOException e) {
            throw new IllegalArgumentException(
                    "NATS TLS: cannot load the trust or key store (" + e.getMessage()
                            + "); check the files and their passwords in NatsConfig",
                    e);
        }
        return config.isTlsHostnameVerification() ? new Verifying(base, hostsByAddress(config)) : base;
    }

    /** The configured servers' host names by the addresses they resolve to now. */
    private static Map<String, String> hostsByAddress(NatsConfig config) {
        Map<String, String> hosts = new HashMap<>();
        for (String server : config.servers()) {
            String host = URI.create(server).getHost();
            try {
                for (InetAddress address : InetAddress.getAllByName(host)) {
                    hosts.putIfAbsent(address.getHostAddress(), host);
                }
            } catch (UnknownHostException e) {
                // not resolvable now: jnats will fail to connect to it, and say so
            }
        }
        return Map.copyOf(hosts);
    }

    private static SSLContext fromStores(NatsConfig config) throws GeneralSecurityException, IOException {
        return TlsStores.context(
                config.trustStore(), config.trustStorePassword(), config.keyStore(), config.keyStorePassword());
    }

    /** A context whose client sockets check the server's host name. */
    private static final class Verifying extends SSLContext {
        Verifying(SSLContext delegate, Map<String, String> hosts) {
            super(new Spi(delegate, hosts), delegate.getProvider(), delegate.getProtocol());
        }
    }

    private static final class Spi extends SSLContextSpi {
        private final SSLContext delegate;
        private final Map<String, String> hosts;

        Spi(SSLContext delegate, Map<String, String> hosts) {
            this.delegate = delegate;
            this.hosts = hosts;
        }

        @Override
        protected void engineInit(KeyManager[] km, TrustManager[] tm, SecureRandom sr) throws KeyManagementException {
            delegate.init(km, tm, sr);
        }

        @Override
        protected SSLSocketFactory engineGetSocketFactory() {
            return new VerifyingFactory(delegate.getSocketFactory(), hosts);
        }

        @Override
        protected SSLServerSocketFactory engineGetServerSocketFactory() {
            return delegate.getServerSocketFactory();
        }

        @Override
        protected SSLEngine engineCreateSSLEngine() {
            return identify(delegate.createSSLEngine());
        }

        @Override
        protected SSLEngine engineCreateSSLEngine(String host, int port) {
            return identify(delegate.createSSLEngine(host, port));
        }

        @Override
        protected SSLSessionContext engineGetServerSessionContext() {
            return delegate.getServerSessionContext();
        }

        @Override
        protected SSLSessionContext engineGetClientSessionContext() {
            return delegate.getClientSessionContext();
        }

        private static SSLEngine identify(SSLEngine engine) {
            SSLParameters p = engine.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(p);
            return engine;
        }
    }

    private static final class VerifyingFactory extends SSLSocketFactory {
        private final SSLSocketFactory delegate;
        private final Map<String, String> hosts;

        VerifyingFactory(SSLSocketFactory delegate, Map<String, String> hosts) {
            this.delegate = delegate;
            this.hosts = hosts;
        }

        private static Socket identify(Socket socket) {
            if (socket instanceof SSLSocket ssl) {
                SSLParameters p = ssl.getSSLParameters();
                p.setEndpointIdentificationAlgorithm("HTTPS");
                ssl.setSSLParameters(p);
            }
            return socket;
        }

        @Override
        public String[] getDefaultCipherSuites() {
            return delegate.getDefaultCipherSuites();
        }

        @Override
        public String[] getSupportedCipherSuites() {
            return delegate.getSupportedCipherSuites();
        }

        @Override
        public Socket createSocket(Socket s, String host, int port, boolean autoClose) throws IOException {
            return identify(delegate.createSocket(s, hosts.getOrDefault(host, host), port, autoClose));
        }

        @Override
        public Socket createSocket(String host, int port) throws IOException {
            return identify(delegate.createSocket(host, port));
        }

        @Override
        public Socket createSocket(String host, int port, InetAddress localHost, int localPort) throws IOException {
            return identify(delegate.createSocket(host, port, localHost, localPort));
        }

        @Override
        public Socket createSocket(InetAddress host, int port) throws IOException {
            return identify(delegate.createSocket(host, port));
        }

        @Override
        public Socket createSocket(InetAddress address, int port, InetAddress localAddress, int localPort)
                throws IOException {
            return identify(delegate.createSocket(address, port, localAddress, localPort));
        }
    }
}
