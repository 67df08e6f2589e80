package dev.shove.conformance;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Assumptions;

/**
 * Certificates made when a test starts, for brokers with a TLS listener: a certificate authority, a server certificate
 * it signed (key and certificate as PEM files, and both in a PKCS12 key store), and a PKCS12 trust store holding the
 * authority. Made with {@code openssl} and the JDK's {@code keytool} in a directory the test owns; without
 * {@code openssl} the test fails when integration tests are {@linkplain BrokerAvailability#required() required} and is
 * skipped otherwise. Every store's password is {@link #STORE_PASSWORD}.
 *
 * @since 0.1.0
 */
public final class TestCertificates {
    /** The password of the key store and the trust stores. */
    public static final String STORE_PASSWORD = "store-it-s3cret";

    private final Path dir;

    private TestCertificates(Path dir) {
        this.dir = dir;
    }

    /**
     * Makes an authority and a server certificate for {@code names} in {@code dir}.
     *
     * @param dir an existing directory the test owns; the files are written there
     * @param names the server certificate's subject alternative names, e.g. {@code DNS:localhost} or {@code
     *     IP:127.0.0.1}; the first also gives its common name
     * @return the certificates
     * @throws Exception if a tool fails
     */
    public static TestCertificates make(Path dir, String... names) throws Exception {
        if (names.length == 0) {
            throw new IllegalArgumentException("a server certificate needs at least one name, e.g. DNS:localhost");
        }
        TestCertificates certs = new TestCertificates(dir);
        certs.authority("ca", "shove-it-ca");
        certs.openssl(
                "req",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-keyout",
                "server-key.pem",
                "-out",
                "server.csr",
                "-subj",
                "/CN=" + names[0].substring(names[0].indexOf(':') + 1));
        Files.writeString(dir.resolve("san.ext"), "subjectAltName=" + String.join(",", names) + "\n");
        certs.openssl(
                "x509",
                "-req",
                "-in",
                "server.csr",
                "-CA",
                "ca.pem",
                "-CAkey",
                "ca-key.pem",
                "-CAcreateserial",
                "-days",
                "1",
                "-out",
                "server.pem",
                "-extfile",
                "san.ext");
        certs.openssl(
                "pkcs12",
                "-export",
                "-in",
                "server.pem",
                "-inkey",
                "server-key.pem",
                "-certfile",
                "ca.pem",
                "-name",
                "server",
                "-out",
                "server.p12",
                "-passout",
                "pass:" + STORE_PASSWORD);
        certs.trustStoreOf("ca.pem", certs.trustStore());
        return certs;
    }

    /** {@return the directory holding the files} */
    public Path dir() {
        return dir;
    }

    /** {@return the authority's certificate (PEM)} */
    public Path authority() {
        return dir.resolve("ca.pem");
    }

    /** {@return the server's certificate (PEM), signed by the authority} */
    public Path serverCertificate() {
        return dir.resolve("server.pem");
    }

    /** {@return the server's private key (PEM, unencrypted)} */
    public Path serverKey() {
        return dir.resolve("server-key.pem");
    }

    /** {@return a PKCS12 key store with the server's key and certificate chain (alias {@code server})} */
    public Path serverKeyStore() {
        return dir.resolve("server.p12");
    }

    /** {@return a PKCS12 trust store with the authority} */
    public Path trustStore() {
        return dir.resolve("trust.p12");
    }

    /**
     * {@return a PKCS12 trust store with another authority, which did not sign the server's certificate} Made on the
     * first call.
     *
     * @throws Exception if a tool fails
     */
    public Path foreignTrustStore() throws Exception {
        Path store = dir.resolve("foreign-trust.p12");
        if (!Files.exists(store)) {
            authority("foreign", "shove-it-foreign-ca");
            trustStoreOf("foreign.pem", store);
        }
        return store;
    }

    /**
     * {@return a client TLS context that trusts the authority}
     *
     * @throws GeneralSecurityException if the trust store cannot be read
     * @throws IOException if the trust store cannot be read
     */
    public SSLContext trustingContext() throws GeneralSecurityException, IOException {
        KeyStore store = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(trustStore())) {
            store.load(in, STORE_PASSWORD.toCharArray());
        }
        TrustManagerFactory trust = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        trust.init(store);
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(null, trust.getTrustManagers(), null);
        return context;
    }

    private void authority(String name, String commonName) throws Exception {
        openssl(
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "1",
                "-keyout",
                name + "-key.pem",
                "-out",
                name + ".pem",
                "-subj",
                "/CN=" + commonName);
    }

    private void trustStoreOf(String certificate, Path store) throws Exception {
        run(List.of(
                Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-importcert",
                "-noprompt",
                "-alias",
                "ca",
                "-file",
                certificate,
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                STORE_PASSWORD));
    }

    private void openssl(String... args) throws Exception {
        List<String> command = new ArrayList<>(List.of("openssl"));
        command.addAll(List.of(args));
        run(command);
    }

    private void run(List<String> command) throws Exception {
        Path log = dir.resolve(Path.of(command.get(0)).getFileName() + ".log");
        Process p;
        try {
            p = new ProcessBuilder(command)
                    .directory(dir.toFile())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(log.toFile()))
                    .start();
        } catch (IOException e) {
            String message = command.get(0) + " is needed to make this test's certificates: " + e.getMessage();
            if (BrokerAvailability.required()) {
                throw new AssertionError(message, e);
            }
            Assumptions.abort(message);
            return;
        }
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            throw new IllegalStateException(command.get(0) + " " + command.get(1) + " took over 60 s");
        }
        if (p.exitValue() != 0) {
            throw new IllegalStateException(
                    String.join(" ", command) + " failed (" + p.exitValue() + "): " + Files.readString(log));
        }
    }
}
