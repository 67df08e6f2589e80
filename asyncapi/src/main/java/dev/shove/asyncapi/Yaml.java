package dev.shove.asyncapi;

import com.fasterxml.jackson.core.io.JsonStringEncoder;
import com.fasterxml.jackson.databind.JsonNode;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Writes a JSON tree as block-style YAML, without a YAML library: mappings and sequences indented by two spaces,
 * strings plain where YAML reads them back as the same string and double-quoted (with JSON's escapes, which YAML
 * shares) everywhere else. Reading the output with any YAML 1.1 or 1.2 parser gives the tree back.
 */
final class Yaml {
    /** Plain scalars that no YAML reader takes for anything but a string: no indicator, no number, no comment. */
    private static final Pattern PLAIN = Pattern.compile("[A-Za-z_$][A-Za-z0-9_$ ./()<>'+-]*");

    /** Words YAML 1.1 reads as booleans or null. */
    private static final Set<String> RESERVED = Set.of("y", "n", "yes", "no", "on", "off", "true", "false", "null");

    private Yaml() {}

    static String write(JsonNode node) {
        StringBuilder out = new StringBuilder();
        if (node.isContainerNode() && !node.isEmpty()) {
            block(node, 0, out);
        } else {
            out.append(scalar(node)).append('\n');
        }
        return out.toString();
    }

    private static void block(JsonNode node, int indent, StringBuilder out) {
        if (node.isObject()) {
            for (Map.Entry<String, JsonNode> e : node.properties()) {
                pad(out, indent).append(string(e.getKey())).append(':');
                value(e.getValue(), indent, out);
            }
        } else {
            for (JsonNode item : node) {
                pad(out, indent).append('-');
                if (item.isObject() && !item.isEmpty()) {
                    // the first entry on the dash's line, the others aligned under it
                    StringBuilder nested = new StringBuilder();
                    block(item, indent + 2, nested);
                    out.append(' ').append(nested, indent + 2, nested.length());
                } else {
                    value(item, indent, out);
                }
            }
        }
    }

    private static void value(JsonNode value, int indent, StringBuilder out) {
        if (value.isContainerNode() && !value.isEmpty()) {
            out.append('\n');
            block(value, indent + 2, out);
        } else {
            out.append(' ').append(scalar(value)).append('\n');
        }
    }

    private static String scalar(JsonNode node) {
        if (node.isObject()) {
            return "{}";
        }
        if (node.isArray()) {
            return "[]";
        }
        if (node.isTextual()) {
            return string(node.textValue());
        }
        return node.toString(); // numbers, booleans and null read the same in YAML
    }

    private static String string(String s) {
        if (PLAIN.matcher(s).matches() && !s.endsWith(" ") && !RESERVED.contains(s.toLowerCase(Locale.ROOT))) {
            return s;
        }
        String escaped = new String(JsonStringEncoder.getInstance().quoteAsString(s));
        // JSON leaves these unescaped; YAML 1.1 would read them as line breaks
        escaped = escaped.replace("\u0085", "\\N").replace("\u2028", "\\L").replace("\u2029", "\\P");
        return '"' + escaped + '"';
    }

    private static StringBuilder pad(StringBuilder out, int indent) {
        return out.repeat(' ', indent);
    }
}
