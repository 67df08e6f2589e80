package dev.shove.spi;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.BiConsumer;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The settings of a broker given as text: a URI's query ({@code ?partitions=12&commitInterval=50ms}), properties or
 * environment variables. Backends read them with typed getters whose errors name the setting, the value and what is
 * accepted; {@link #finish()} then refuses any setting nobody read, listing the accepted ones, so a typo never goes
 * unnoticed. A setting {@code x} may instead be given as {@code x_file}, the path of a file holding the value
 * (trimmed), so that secrets need not appear in a URI or an environment variable. Not thread-safe; one per config.
 *
 * <p>Durations are {@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, or ISO-8601 ({@code PT5S}); booleans are
 * {@code true} or {@code false}.
 *
 * @since 0.1.0
 */
public final class UriParameters {
    private static final Pattern DURATION = Pattern.compile("(\\d+)(ms|s|m|h|d)");
    private static final String FILE_SUFFIX = "_file";

    private final String what;
    private final Map<String, String> values;
    private final Set<String> accepted = new TreeSet<>();

    /**
     * Parameters read from {@code values}; each read marks its setting as accepted.
     *
     * @param what names the source in errors, e.g. {@code Kafka URI 'kafka://kafka-1:9092?...'}
     * @param values setting to value
     */
    public UriParameters(String what, Map<String, String> values) {
        this.what = what;
        this.values = new LinkedHashMap<>(values);
    }

    /**
     * The parameters of a URI's raw query ({@code a=1&b=2}, percent-encoded); none for null.
     *
     * @param what names the source in errors, e.g. {@code Kafka URI 'kafka://kafka-1:9092?...'}
     * @param rawQuery the query as {@link java.net.URI#getRawQuery()} gives it, or null
     * @return the decoded parameters
     */
    public static UriParameters ofQuery(String what, @Nullable String rawQuery) {
        Map<String, String> values = new LinkedHashMap<>();
        if (rawQuery != null && !rawQuery.isEmpty()) {
            for (String pair : rawQuery.split("&")) {
                if (pair.isEmpty()) {
                    continue;
                }
                int eq = pair.indexOf('=');
                String key = decode(eq < 0 ? pair : pair.substring(0, eq));
                String value = eq < 0 ? "" : decode(pair.substring(eq + 1));
                if (values.put(key, value) != null) {
                    throw new IllegalArgumentException(what + ": parameter '" + key + "' is given twice");
                }
            }
        }
        return new UriParameters(what, values);
    }

    private static String decode(String s) {
        return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    }

    /**
     * {@return the value of {@code name} (or of the file {@code name_file} names), or null when neither is given}
     *
     * @param name the setting
     */
    public @Nullable String string(String name) {
        accepted.add(name);
        String value = values.remove(name);
        String file = values.remove(name + FILE_SUFFIX);
        if (value != null && file != null) {
            throw new IllegalArgumentException(
                    what + ": give '" + name + "' or '" + name + FILE_SUFFIX + "', not both");
        }
        if (file == null) {
            return value;
        }
        try {
            return Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    what + ": '" + name + FILE_SUFFIX + "' names a file that cannot be read: " + file + " ("
                            + e.getClass().getSimpleName() + ")");
        }
    }

    /**
     * {@return an integer setting, or null when absent}
     *
     * @param name the setting
     * @throws IllegalArgumentException naming the setting when its value is not an integer
     */
    public @Nullable Integer integer(String name) {
        String v = string(name);
        if (v == null) {
            return null;
        }
        try {
            return Integer.valueOf(v.strip());
        } catch (NumberFormatException e) {
            throw invalid(name, v, "a whole number");
        }
    }

    /**
     * {@return a boolean setting ({@code true} or {@code false}), or null when absent}
     *
     * @param name the setting
     * @throws IllegalArgumentException naming the setting when its value is neither
     */
    public @Nullable Boolean bool(String name) {
        String v = string(name);
        if (v == null) {
            return null;
        }
        return switch (v.strip().toLowerCase(Locale.ROOT)) {
            case "true" -> Boolean.TRUE;
            case "false" -> Boolean.FALSE;
            default -> throw invalid(name, v, "true or false");
        };
    }

    /**
     * {@return a duration setting ({@code 500ms}, {@code 5s}, {@code 2m}, {@code 1h}, {@code 1d} or {@code PT5S}), or
     * null when absent}
     *
     * @param name the setting
     * @throws IllegalArgumentException naming the setting when its value is not a duration
     */
    public @Nullable Duration duration(String name) {
        String v = string(name);
        if (v == null) {
            return null;
        }
        String text = v.strip();
        Matcher m = DURATION.matcher(text);
        if (m.matches()) {
            long n = Long.parseLong(m.group(1));
            return switch (m.group(2)) {
                case "ms" -> Duration.ofMillis(n);
                case "s" -> Duration.ofSeconds(n);
                case "m" -> Duration.ofMinutes(n);
                case "h" -> Duration.ofHours(n);
                default -> Duration.ofDays(n);
            };
        }
        try {
            return Duration.parse(text);
        } catch (DateTimeParseException e) {
            throw invalid(name, v, "a duration such as 500ms, 5s, 2m, 1h or PT5S");
        }
    }

    /**
     * Every remaining setting whose name starts with {@code prefix} (e.g. {@code client.} for pass-through client
     * properties), with the prefix removed; they count as read.
     *
     * @param prefix the start of the names to take
     * @return name (without the prefix) to value; empty when none match
     */
    public Map<String, String> withPrefix(String prefix) {
        accepted.add(prefix + "*");
        Map<String, String> out = new LinkedHashMap<>();
        for (String key : Set.copyOf(values.keySet())) {
            if (key.startsWith(prefix) && key.length() > prefix.length()) {
                String name = key.substring(prefix.length());
                out.put(name, string(key));
            }
        }
        return out;
    }

    /**
     * Reads a key or trust store given as two settings, {@code name} (its file) and {@code name + "Password"}, and
     * hands them to {@code setter} when the file is given (the password defaulting to empty).
     *
     * @param name the file's setting, e.g. {@code trustStore}
     * @param setter receives the file and its password
     * @throws IllegalArgumentException if the password is given without the file
     */
    public void store(String name, BiConsumer<Path, String> setter) {
        String file = string(name);
        String password = string(name + "Password");
        if (file != null) {
            setter.accept(Path.of(file), password == null ? "" : password);
        } else if (password != null) {
            throw new IllegalArgumentException(what + ": " + name + "Password is given without " + name);
        }
    }

    /**
     * An error for a value of {@code name} that is not {@code expected}: names both. Never shows a secret.
     *
     * @param name the setting
     * @param value the value given
     * @param expected what the value should be, e.g. {@code "a positive integer"}
     * @return the exception to throw
     */
    public IllegalArgumentException invalid(String name, String value, String expected) {
        boolean secret = name.toLowerCase(Locale.ROOT).contains("password")
                || name.toLowerCase(Locale.ROOT).contains("secret")
                || name.toLowerCase(Locale.ROOT).contains("token");
        return new IllegalArgumentException(what + ": parameter '" + name + "' is "
                + (secret ? "invalid" : "'" + value + "'") + "; expected " + expected);
    }

    /**
     * Refuses the settings nobody read: each is a typo or a setting this backend does not have.
     *
     * @throws IllegalArgumentException naming them and the accepted settings
     */
    public void finish() {
        if (!values.isEmpty()) {
            throw new IllegalArgumentException(what + ": unknown parameter(s) " + new TreeSet<>(values.keySet())
                    + "; accepted: " + accepted + " (any of them also as <name>" + FILE_SUFFIX
                    + ", a file holding the value)");
        }
    }
}
