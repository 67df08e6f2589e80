package dev.shove.benchmarks;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * Gathers every harness's {@link BenchReport} under the report directory into one table: {@code summary.json} (the
 * reports in one array) and {@code summary.md} (each harness's modes and targets, then every target in one table),
 * and prints the Markdown. {@code scripts/bench.sh all} runs it after the harnesses.
 *
 * <p>Arguments (optional): {@code dir} (default {@code target/bench}).
 */
public final class BenchSummary {
    private BenchSummary() {}

    public static void main(String[] argv) throws IOException {
        BenchArgs args = BenchArgs.parse(argv);
        Path dir = Path.of(args.text("dir", BenchReport.directory().toString()));
        ObjectMapper json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        List<Path> files;
        try (Stream<Path> listing = Files.list(dir)) {
            files = listing.filter(p -> p.getFileName().toString().endsWith(".json"))
                    .filter(p -> !p.getFileName().toString().equals("summary.json"))
                    .sorted()
                    .toList();
        }
        ObjectNode summary = json.createObjectNode();
        ArrayNode reports = summary.putArray("reports");
        StringBuilder details = new StringBuilder();
        StringBuilder targets =
                new StringBuilder("| harness | figure | value | target | met |\n|---|---|---|---|---|\n");
        int met = 0;
        int missed = 0;
        for (Path file : files) {
            JsonNode report = json.readTree(file.toFile());
            reports.add(report);
            details.append(BenchReport.markdown(report));
            for (JsonNode t : report.path("targets")) {
                if (t.path("met").asText().equals("-")) {
                    continue;
                }
                if (t.path("met").asText().equals("met")) {
                    met++;
                } else {
                    missed++;
                }
                targets.append("| ")
                        .append(report.path("harness").asText())
                        .append(" | ")
                        .append(t.path("name").asText())
                        .append(" | ")
                        .append(
                                t.path("value").isNumber()
                                        ? String.format("%,.2f", t.path("value").asDouble())
                                        : "-")
                        .append(' ')
                        .append(t.path("unit").asText())
                        .append(" | ")
                        .append(t.path("target").asText())
                        .append(" | ")
                        .append(t.path("met").asText())
                        .append(" |\n");
            }
        }
        summary.put("met", met);
        summary.put("notMet", missed);
        String markdown =
                "## Targets: " + met + " met, " + missed + " not met\n\n" + targets + "\n## Harnesses\n\n" + details;
        json.writeValue(dir.resolve("summary.json").toFile(), summary);
        Files.writeString(dir.resolve("summary.md"), markdown);
        System.out.print(markdown);
        System.out.println("written: " + dir.resolve("summary.json") + " and " + dir.resolve("summary.md"));
    }
}
