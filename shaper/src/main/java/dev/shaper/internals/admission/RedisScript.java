package dev.shaper.internals.admission;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script the shaper runs in Redis, read from the class path: its source (for EVAL, which loads it) and its
 * SHA-1 (for EVALSHA, which runs a loaded one).
 *
 * @param source the script's text
 * @param sha    SHA-1 of {@code source}, in lower-case hex
 */
public record RedisScript(String source, String sha) {

    /** Reads {@code resource} (a class-path name such as {@code dev/shaper/token-bucket.lua}). */
    public static RedisScript load(String resource) {
        try (InputStream in = RedisScript.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the class path");
            }
            String source = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            return new RedisScript(source, sha1(source));
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
