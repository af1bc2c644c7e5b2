package dev.shaper.internals.config;

import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.regex.Pattern;

/**
 * The settings an instance runs with, as one log line at start, secrets masked: what the settings file, the
 * environment and the shaper's defaults made of them together is what an operator needs to see first.
 */
public final class EffectiveSettings {

    /** What a masked value reads as. */
    static final String MASK = "[hidden]";
    /** Keys whose values are secrets: passwords, keys, JAAS configurations (which hold passwords), tokens. */
    private static final Pattern SECRET_KEY = Pattern.compile(
            ".*(password|secret|jaas\\.config|\\.key$|token|credentials|apikey|api\\.key).*");
    /** The user information of a URI ({@code scheme://user:password@host}): the password part is masked. */
    private static final Pattern URI_PASSWORD = Pattern.compile("(?<=://)([^:/@]*):([^@/]*)@");

    private EffectiveSettings() {
    }

    /** {@code key=value} pairs, sorted by key, secrets masked. */
    public static String describe(Properties settings) {
        Map<String, String> sorted = new TreeMap<>();
        settings.forEach((key, value) -> sorted.put(String.valueOf(key), masked(String.valueOf(key), value)));
        StringBuilder line = new StringBuilder();
        sorted.forEach((key, value) -> line.append(line.isEmpty() ? "" : ", ").append(key).append('=').append(value));
        return line.toString();
    }

    /** Whether {@code key}'s value is a secret that no log line shows (a URI's password is masked apart). */
    public static boolean isSecretKey(String key) {
        return SECRET_KEY.matcher(key.toLowerCase(Locale.ROOT)).matches();
    }

    private static String masked(String key, Object value) {
        if (value == null) {
            return "null";
        }
        if (isSecretKey(key)) {
            return MASK;
        }
        String text = String.valueOf(value);
        return URI_PASSWORD.matcher(text).replaceAll("$1:" + MASK + "@");
    }
}
