package dev.shove.asyncapi;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/** The YAML writer: whatever the tree holds, a YAML parser reads the same tree back. */
class YamlTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    @Test
    @DisplayName("strings YAML would read as something else are quoted; the others stay plain")
    void strings() throws Exception {
        List<String> tricky = List.of(
                "yes",
                "No",
                "on",
                "OFF",
                "true",
                "null",
                "~",
                "y",
                "1.0",
                "1.0.0",
                "0x1F",
                "1e3",
                "-dash",
                "- item",
                "a: b",
                "a:b",
                "#comment",
                "a #b",
                " lead",
                "trail ",
                "multi\nline",
                "tab\there",
                "quote\"s",
                "single'quote",
                "'start",
                "back\\slash",
                "unicode é ✓",
                "sep\u2028arator",
                "nel\u0085",
                "",
                "{x}",
                "[y]",
                "*alias",
                "&anchor",
                "!tag",
                "%dir",
                "@at",
                "`tick",
                "|block",
                ">fold",
                "?key",
                "$ref",
                "#/components/schemas/Order",
                "x-shove-topic",
                "order-events-seq-{shard}",
                "Page<Order>",
                "a, b",
                "\u0000nul",
                "emoji 🚀");
        ObjectNode tree = JSON.createObjectNode();
        ArrayNode values = tree.putArray("values");
        tricky.forEach(values::add);
        tricky.forEach(s -> tree.put(s, s));
        assertRoundTrip(tree);
        String yaml = Yaml.write(tree);
        assertThat(yaml).contains("\n  - x-shove-topic\n").contains("\n  - \"yes\"\n");
    }

    @Test
    @DisplayName("numbers, booleans, null, empty and nested containers read back as they were")
    void values() throws Exception {
        ObjectNode tree = JSON.createObjectNode();
        tree.put("int", 42).put("negative", -7).put("long", 1_796_112_000_000L).put("double", 0.25);
        tree.put("big", new BigDecimal("12.50"))
                .put("yes", true)
                .put("no", false)
                .putNull("nothing");
        tree.putObject("empty");
        tree.putArray("none");
        ArrayNode nested = tree.putArray("nested");
        nested.addArray().add("a").add("b");
        nested.addObject()
                .put("k", "v")
                .putObject("deeper")
                .putArray("list")
                .addObject()
                .put("x", 1);
        nested.addObject();
        nested.addArray();
        assertRoundTrip(tree);
    }

    private static void assertRoundTrip(JsonNode tree) throws Exception {
        String yaml = Yaml.write(tree);
        JsonNode back = new YAMLMapper().readTree(yaml);
        assertThat(back).as("read back from:%n%s", yaml).isEqualTo(JSON.readTree(tree.toString()));
    }
}
