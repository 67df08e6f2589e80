package dev.shove.spi;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.security.SecureRandom;
import java.util.Locale;
import javax.net.ssl.KeyManager;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import org.jspecify.annotations.Nullable;

/**
 * A TLS context from key-store files, for backends whose client takes an {@link SSLContext}: a trust store decides
 * which server certificates are trusted (the JVM's default trust when none is given), a key store holds a client
 * certificate. A file ending in {@code .jks} is read as JKS, any other as PKCS12.
 *
 * @since 0.1.0
 */
public final class TlsStores {
    private TlsStores() {}

    /**
     * {@return a TLS context trusting {@code trustStore}'s certificates and presenting {@code keyStore}'s key}
     *
     * @param trustStore the trust store, or null for the JVM's default trust
     * @param trustStorePassword its password, or null for none
     * @param keyStore the key store with a client key and certificate, or null for none
     * @param keyStorePassword its password (also the key's), or null for none
     * @throws GeneralSecurityException if a store cannot be read (a wrong password, for one)
     * @throws IOException if a file cannot be read
     */
    public static SSLContext context(
            @Nullable Path trustStore,
            @Nullable String trustStorePassword,
            @Nullable Path keyStore,
            @Nullable String keyStorePassword)
            throws GeneralSecurityException, IOException {
        TrustManager @Nullable [] trust = null;
        if (trustStore != null) {
            TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
            tmf.init(load(trustStore, password(trustStorePassword)));
            trust = tmf.getTrustManagers();
        }
        KeyManager @Nullable [] keys = null;
        if (keyStore != null) {
            char[] password = password(keyStorePassword);
            KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
            kmf.init(load(keyStore, password), password);
            keys = kmf.getKeyManagers();
        }
        SSLContext context = SSLContext.getInstance("TLS");
        context.init(keys, trust, new SecureRandom());
        return context;
    }

    private static char[] password(@Nullable String password) {
        return password == null ? new char[0] : password.toCharArray();
    }

    private static KeyStore load(Path file, char[] password) throws GeneralSecurityException, IOException {
        String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        KeyStore store = KeyStore.getInstance(name.endsWith(".jks") ? "JKS" : "PKCS12");
        try (InputStream in = Files.newInputStream(file)) {
            store.load(in, password);
        }
        return store;
    }
}
