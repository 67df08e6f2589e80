package dev.shove.benchmarks;

import java.util.HashMap;
import java.util.Map;

/** A harness's {@code key=value} arguments, each with its default; words without {@code =} are ignored. */
final class BenchArgs {
    private final Map<String, String> values = new HashMap<>();

    private BenchArgs() {}

    static BenchArgs parse(String[] argv) {
        BenchArgs args = new BenchArgs();
        for (String a : argv) {
            int eq = a.indexOf('=');
            if (eq > 0) {
                args.values.put(a.substring(0, eq), a.substring(eq + 1));
            }
        }
        return args;
    }

    String text(String key, String defaultValue) {
        return values.getOrDefault(key, defaultValue);
    }

    /** The argument, else the environment variable {@code env} when set, else the default. */
    String textOrEnv(String key, String env, String defaultValue) {
        String fromEnv = System.getenv(env);
        return text(key, fromEnv == null || fromEnv.isBlank() ? defaultValue : fromEnv);
    }

    int integer(String key, int defaultValue) {
        String v = values.get(key);
        return v == null ? defaultValue : Integer.parseInt(v);
    }

    long longValue(String key, long defaultValue) {
        String v = values.get(key);
        return v == null ? defaultValue : Long.parseLong(v);
    }

    /** How many measured runs ({@code runs}, 3 by default). */
    int runs() {
        return integer("runs", 3);
    }
}
