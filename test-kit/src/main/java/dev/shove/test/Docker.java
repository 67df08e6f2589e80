package dev.shove.test;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whether the kit can start brokers in containers: Testcontainers on the class path, and a Docker daemon that
 * answers. Asking Docker takes a moment and logs Testcontainers' own findings, so it is asked once per JVM.
 */
final class Docker {
    private static final Logger log = LoggerFactory.getLogger(Docker.class);
    private static final String DOCKER_CLIENT_FACTORY = "org.testcontainers.DockerClientFactory";

    private static @Nullable Boolean answers;

    private Docker() {}

    /**
     * Why no container can start, or null when one can. {@code switchedOff} is the value of {@link
     * ShoveTest#DOCKER_PROPERTY}.
     */
    static @Nullable String unavailable(@Nullable String switchedOff) {
        if ("false".equalsIgnoreCase(switchedOff == null ? "" : switchedOff.trim())) {
            return "containers are switched off (-D" + ShoveTest.DOCKER_PROPERTY + "=false)";
        }
        if (!testcontainersPresent()) {
            return "Testcontainers is not on the test class path (add org.testcontainers:testcontainers to the"
                    + " test dependencies)";
        }
        if (!answers()) {
            return "no Docker daemon answers (Testcontainers found no Docker environment)";
        }
        return null;
    }

    private static boolean testcontainersPresent() {
        try {
            Class.forName(DOCKER_CLIENT_FACTORY, false, Docker.class.getClassLoader());
            return true;
        } catch (ClassNotFoundException | LinkageError e) {
            return false;
        }
    }

    private static synchronized boolean answers() {
        if (answers == null) {
            long start = System.nanoTime();
            boolean found;
            try {
                found = Containers.dockerAvailable();
            } catch (RuntimeException | LinkageError e) {
                log.debug("asking Testcontainers for Docker failed", e);
                found = false;
            }
            answers = found;
            log.info(
                    "shove-test: a Docker daemon {} (asked once, in {} ms)",
                    found ? "answers" : "does not answer",
                    (System.nanoTime() - start) / 1_000_000);
        }
        return answers;
    }
}
