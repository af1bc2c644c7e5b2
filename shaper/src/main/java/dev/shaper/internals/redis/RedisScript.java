package dev.shaper.internals.redis;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A Lua script the shaper runs in Redis, read from the class path: its source (for EVAL, which loads it) and its
 * SHA-1 (for EVALSHA, which runs a loaded one).
 *
 * <p>Redis scripts cannot import one another, so scripts that share code keep it in a fragment of the same folder
 * and name it on a line of its own, {@code -- #include window-counters.lua}: {@link #load} puts the fragment's text
 * in place of that line (one level: a fragment's own include lines stay as they are).
 *
 * @param source the script's text as Redis runs it, fragments included
 * @param sha    SHA-1 of {@code source}, in lower-case hex
 */
public record RedisScript(String source, String sha) {

    /** A line that stands for a fragment: {@code -- #include <file name>}, with its line break. */
    private static final Pattern INCLUDE = Pattern.compile("(?m)^-- #include (\\S+)[ \\t]*(?:\\R|\\z)");

    /** Reads {@code resource} (a class-path name such as {@code dev/shaper/token-bucket.lua}) and its fragments. */
    public static RedisScript load(String resource) {
        String folder = resource.substring(0, resource.lastIndexOf('/') + 1);
        String source = INCLUDE.matcher(read(resource))
                .replaceAll(include -> Matcher.quoteReplacement(read(folder + include.group(1))));
        return new RedisScript(source, sha1(source));
    }

    private static String read(String resource) {
        try (InputStream in = RedisScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + resource, e);
        }
    }

    private static String sha1(String text) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-1")
                    .digest(text.getBytes(StandardCharsets.UTF_8)));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
