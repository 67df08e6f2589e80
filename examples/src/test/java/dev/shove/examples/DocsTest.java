package dev.shove.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.shove.ShoveHeaders;
import dev.shove.ShoveMeters;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * Keeps the README and {@code docs/} true to the code: every quoted snippet equals the region of the compiled source
 * it names, and every relative link points at a file (and heading) that exists.
 *
 * <p>A snippet is a fenced block right after a marker naming a source file (relative to the repository root) and a
 * region in it:
 *
 * <pre>
 * &lt;!-- snippet: examples/src/main/java/dev/shove/examples/Quickstart.java#journey --&gt;
 * ```java
 * ...the lines between "// region journey" and "// endregion journey", de-indented...
 * ```
 * </pre>
 *
 * <p>After changing an example, run {@code ./mvnw -pl examples -am verify -Dsnippets.update=true} to rewrite the
 * quoted snippets from the sources, and review the diff.
 */
class DocsTest {
    private static final Pattern MARKER =
            Pattern.compile("<!-- snippet: (?<file>[^#\\s]+)#(?<region>[\\w-]+) -->\\R```(?<lang>\\w*)\\R");
    private static final Pattern LINK = Pattern.compile("(?<!!)\\[[^\\]]*]\\((?<target>[^)\\s]+)\\)");
    private static final Pattern REGION_LINE = Pattern.compile("^\\s*// (end)?region\\b.*$");

    private static final Path ROOT = findRoot();

    @Test
    @DisplayName("every snippet in the README and docs/ equals the region of the source file it names")
    void snippetsMatchTheirSources() throws IOException {
        boolean update = Boolean.getBoolean("snippets.update");
        List<String> mismatches = new ArrayList<>();
        int snippets = 0;
        for (Path doc : documents()) {
            String text = Files.readString(doc, StandardCharsets.UTF_8);
            StringBuilder rewritten = new StringBuilder();
            Matcher m = MARKER.matcher(text);
            int from = 0;
            while (m.find(from)) {
                snippets++;
                int bodyStart = m.end();
                int bodyEnd = text.indexOf("```", bodyStart);
                if (bodyEnd < 0) {
                    mismatches.add(ROOT.relativize(doc) + ": snippet " + m.group("region") + " is not closed");
                    break;
                }
                String quoted = text.substring(bodyStart, bodyEnd);
                String expected = region(ROOT.resolve(m.group("file")), m.group("region"));
                if (!quoted.equals(expected)) {
                    mismatches.add("%s: snippet %s#%s differs from the source; expected:%n%s"
                            .formatted(ROOT.relativize(doc), m.group("file"), m.group("region"), expected));
                }
                rewritten.append(text, from, bodyStart).append(expected);
                from = bodyEnd;
            }
            rewritten.append(text.substring(from));
            if (update && !rewritten.toString().equals(text)) {
                Files.writeString(doc, rewritten.toString(), StandardCharsets.UTF_8);
            }
        }
        assertThat(snippets).as("snippets found in README.md and docs/").isPositive();
        if (!update) {
            assertThat(mismatches)
                    .as("snippets out of date; rerun with -Dsnippets.update=true to rewrite them from the sources")
                    .isEmpty();
        }
    }

    @Test
    @DisplayName("every relative link in the README and docs/ points at an existing file and heading")
    void relativeLinksResolve() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path doc : documents()) {
            String text = withoutCodeBlocks(Files.readString(doc, StandardCharsets.UTF_8));
            Matcher m = LINK.matcher(text);
            while (m.find()) {
                String target = m.group("target");
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                int hash = target.indexOf('#');
                String file = hash < 0 ? target : target.substring(0, hash);
                String anchor = hash < 0 ? null : target.substring(hash + 1);
                Path resolved =
                        file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
                if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(doc) + ": " + target + " (no such file)");
                } else if (anchor != null
                        && resolved.toString().endsWith(".md")
                        && !anchors(resolved).contains(anchor)) {
                    broken.add(ROOT.relativize(doc) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    @DisplayName("the headers page documents every header shove writes")
    void headersPageListsEveryHeader() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/concepts/headers.md"), StandardCharsets.UTF_8);
        assertThat(ShoveHeaders.ALL).allSatisfy(h -> assertThat(page).contains("`" + h + "`"));
    }

    @Test
    @DisplayName("the shutdown page says that a JVM started in the background by a script ignores SIGINT, and to send"
            + " SIGTERM")
    void shutdownPageWarnsAboutBackgroundSigint() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/concepts/groups-and-shutdown.md"), StandardCharsets.UTF_8);
        String paragraph = page.substring(page.indexOf("A JVM started in the background"));
        paragraph = paragraph.substring(0, paragraph.indexOf("\n\n"));
        assertThat(paragraph).contains("never sees SIGINT").contains("SIGTERM");
    }

    @Test
    @DisplayName("the observability page documents every meter shove registers")
    void observabilityPageListsEveryMeter() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/concepts/observability.md"), StandardCharsets.UTF_8);
        assertThat(ShoveMeters.ALL)
                .isNotEmpty()
                .allSatisfy(name -> assertThat(page).contains("`" + name + "`"));
    }

    @Test
    @DisplayName("the configuration page's table lists every environment variable the code and scripts read")
    void configurationPageListsEveryEnvironmentVariable() throws IOException {
        String page = Files.readString(ROOT.resolve("docs/concepts/configuration.md"), StandardCharsets.UTF_8);
        int start = page.indexOf("## Environment variables");
        assertThat(start)
                .as("a section '## Environment variables' in configuration.md")
                .isNotNegative();
        int end = page.indexOf("\n## ", start + 1);
        String table = page.substring(start, end < 0 ? page.length() : end);
        Set<String> read = new java.util.TreeSet<>();
        Pattern javaLiteral = Pattern.compile("\"(SHOVE_[A-Z0-9_]*[A-Z0-9])\"");
        Pattern shellVariable = Pattern.compile("\\$\\{?(SHOVE_[A-Z0-9_]*[A-Z0-9])");
        try (Stream<Path> walk = Files.walk(ROOT)) {
            for (Path file : walk.filter(Files::isRegularFile)
                    .filter(f ->
                            !f.toString().contains("/target/") && !f.toString().contains("/.git/"))
                    .toList()) {
                String name = file.getFileName().toString();
                boolean java = name.endsWith(".java") && !name.equals("BrokerUrisTest.java");
                boolean shell =
                        name.endsWith(".sh") || ROOT.relativize(file).toString().equals(".ci/run");
                if (java || shell) {
                    Matcher m = (java ? javaLiteral : shellVariable)
                            .matcher(Files.readString(file, StandardCharsets.UTF_8));
                    while (m.find()) {
                        read.add(m.group(1));
                    }
                }
            }
        }
        assertThat(read).contains("SHOVE_BROKER_URI", "SHOVE_TEST_BROKER_URI", "SHOVE_IT_REQUIRED", "SHOVE_BROKERS");
        assertThat(read).allSatisfy(v -> assertThat(table).as("the row of " + v).contains("`" + v + "`"));
    }

    @Test
    @DisplayName("the README's \"Add shove to your project\" names every artifact of the BOM, and the BOM's version")
    void readmeNamesEveryArtifact() throws IOException {
        String readme = Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
        int start = readme.indexOf("## Add shove to your project");
        assertThat(start)
                .as("a section '## Add shove to your project' in README.md")
                .isNotNegative();
        int end = readme.indexOf("\n## ", start + 1);
        String section = readme.substring(start, end < 0 ? readme.length() : end);
        String bom = Files.readString(ROOT.resolve("bom/pom.xml"), StandardCharsets.UTF_8);
        Matcher version = Pattern.compile("<artifactId>shove-bom</artifactId>\\s*<version>([^<]+)</version>")
                .matcher(bom);
        assertThat(version.find()).as("the BOM's own version").isTrue();
        List<String> artifacts = new ArrayList<>();
        Matcher m = Pattern.compile("<groupId>dev\\.shove</groupId>\\s*<artifactId>([^<]+)</artifactId>")
                .matcher(bom);
        while (m.find()) {
            artifacts.add(m.group(1));
        }
        assertThat(artifacts).contains("shove-core", "shove-spring-boot-starter");
        assertThat(artifacts).allSatisfy(a -> assertThat(section).contains("`" + a + "`"));
        assertThat(section).contains("`shove-bom`").contains("shove-bom:" + version.group(1));
        assertThat(section).contains("<version>" + version.group(1) + "</version>");
    }

    /**
     * The quoted part of a source file: for {@code pre-N}, the N-th {@code <pre>} block of its comments (without the
     * comment's leading {@code *}); otherwise the lines between {@code // region name} and {@code // endregion name},
     * without nested markers, de-indented.
     */
    static String region(Path source, String name) {
        List<String> lines;
        try {
            lines = Files.readAllLines(source, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + source, e);
        }
        if (name.matches("pre-\\d+")) {
            return preBlock(source, lines, Integer.parseInt(name.substring(4)));
        }
        int start = -1;
        int end = -1;
        for (int i = 0; i < lines.size(); i++) {
            String t = lines.get(i).trim();
            if (t.equals("// region " + name)) {
                start = i + 1;
            } else if (t.equals("// endregion " + name) && start >= 0) {
                end = i;
                break;
            }
        }
        assertThat(start).as("'// region %s' in %s", name, source).isNotNegative();
        assertThat(end).as("'// endregion %s' in %s", name, source).isNotNegative();
        List<String> body = lines.subList(start, end).stream()
                .filter(l -> !REGION_LINE.matcher(l).matches())
                .toList();
        int indent = body.stream()
                .filter(l -> !l.isBlank())
                .mapToInt(l -> l.length() - l.stripLeading().length())
                .min()
                .orElse(0);
        StringBuilder out = new StringBuilder();
        for (String l : body) {
            out.append(l.isBlank() ? "" : l.substring(indent)).append('\n');
        }
        return out.toString();
    }

    private static String preBlock(Path source, List<String> lines, int n) {
        int seen = 0;
        StringBuilder out = null;
        for (String line : lines) {
            String t = line.trim();
            if (out == null && t.equals("* <pre>") && ++seen == n) {
                out = new StringBuilder();
            } else if (out != null && t.equals("* </pre>")) {
                return out.toString();
            } else if (out != null) {
                out.append(t.equals("*") ? "" : t.substring(t.startsWith("* ") ? 2 : 1))
                        .append('\n');
            }
        }
        throw new AssertionError("no <pre> block number " + n + " in " + source);
    }

    private static List<Path> documents() throws IOException {
        List<Path> docs = new ArrayList<>();
        docs.add(ROOT.resolve("README.md"));
        try (Stream<Path> walk = Files.walk(ROOT.resolve("docs"))) {
            walk.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
        }
        return docs;
    }

    /** GitHub's heading anchors of a Markdown file. */
    private static Set<String> anchors(Path markdown) throws IOException {
        Set<String> anchors = new HashSet<>();
        String text = Files.readString(markdown, StandardCharsets.UTF_8).replaceAll("(?s)```.*?```", "");
        for (String line : text.lines().toList()) {
            if (line.startsWith("#")) {
                String heading = line.replaceFirst("^#+\\s*", "").trim();
                String slug = heading.toLowerCase(Locale.ROOT)
                        .replaceAll("[^\\p{L}\\p{N} _-]", "")
                        .replace(' ', '-');
                String unique = slug;
                for (int i = 1; anchors.contains(unique); i++) {
                    unique = slug + "-" + i;
                }
                anchors.add(unique);
            }
        }
        return anchors;
    }

    private static String withoutCodeBlocks(String markdown) {
        return markdown.replaceAll("(?s)```.*?```", "").replaceAll("`[^`\\n]*`", "``");
    }

    private static Path findRoot() {
        Path dir = Path.of("").toAbsolutePath();
        while (dir != null && !Files.exists(dir.resolve("mvnw"))) {
            dir = dir.getParent();
        }
        if (dir == null) {
            throw new IllegalStateException(
                    "cannot find the repository root above " + Path.of("").toAbsolutePath());
        }
        return dir;
    }
}
