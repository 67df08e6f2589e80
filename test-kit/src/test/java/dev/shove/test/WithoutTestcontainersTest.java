package dev.shove.test;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarFile;
import java.util.jar.Manifest;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Testcontainers is an optional dependency: an application without it must be able to use the kit. The kit's classes
 * are loaded here from a class path without Testcontainers and its own dependencies, as such an application has it.
 */
class WithoutTestcontainersTest {

    @Test
    @DisplayName("without Testcontainers on the class path the kit's classes load and the container path says why not")
    void kitLoadsWithoutTestcontainers() throws Exception {
        try (URLClassLoader loader =
                new URLClassLoader(withoutTestcontainers(), ClassLoader.getPlatformClassLoader())) {
            assertThat(loader.getResource("org/testcontainers/DockerClientFactory.class"))
                    .as("Testcontainers hidden")
                    .isNull();
            for (String name : List.of("ShoveExtension", "ShoveKit", "BrokerChoice", "Docker", "RecordingTransport")) {
                Class.forName("dev.shove.test." + name, true, loader); // links: no class of Testcontainers is needed
            }
            Method unavailable =
                    Class.forName("dev.shove.test.Docker", true, loader).getDeclaredMethod("unavailable", String.class);
            unavailable.setAccessible(true);

            assertThat((String) unavailable.invoke(null, (Object) null))
                    .isEqualTo("Testcontainers is not on the test class path (add org.testcontainers:testcontainers to"
                            + " the test dependencies)");
        }
    }

    /** This test's class path without Testcontainers and what only it brings (docker-java, duct-tape, JNA...). */
    private static URL[] withoutTestcontainers() throws MalformedURLException {
        List<URL> urls = new ArrayList<>();
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            for (URL url : expanded(new File(entry))) {
                String path = url.getPath();
                if (!path.contains("testcontainers")
                        && !path.contains("docker-java")
                        && !path.contains("duct-tape")
                        && !path.contains("/jna/")) {
                    urls.add(url);
                }
            }
        }
        return urls.toArray(URL[]::new);
    }

    /** A class path entry, and the entries of a manifest-only jar (how Surefire passes a long class path). */
    private static List<URL> expanded(File entry) throws MalformedURLException {
        List<URL> out = new ArrayList<>();
        out.add(entry.toURI().toURL());
        if (entry.isFile() && entry.getName().endsWith(".jar")) {
            try (JarFile jar = new JarFile(entry)) {
                Manifest manifest = jar.getManifest();
                String classPath =
                        manifest == null ? null : manifest.getMainAttributes().getValue("Class-Path");
                if (classPath != null) {
                    for (String item : classPath.trim().split("\\s+")) {
                        out.add(entry.toURI().resolve(URI.create(item)).toURL());
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read " + entry, e);
            }
        }
        return out;
    }
}
