package dev.shaper.docs;

import dev.shaper.ShaperConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Writes {@code docs/configuration.md}: every {@code shaper.*} setting from {@link ShaperConfig#configDef()}, the
 * per-key rules file's fields, and the Kafka Streams defaults {@link ShaperConfig#streamsProperties()} changes, all
 * taken from the code, so the reference cannot drift from what runs.
 *
 * <p>Usage: {@code ConfigurationDocs path/to/repository-root}; it reads {@code shaper/config/rules.yaml} (the
 * example it quotes) and writes {@code docs/configuration.md} there.
 */
public final class ConfigurationDocs {

    /** Where the document lives, relative to the repository root. */
    public static final Path DOCUMENT = Path.of("docs", "configuration.md");
    /** The example rules file the document quotes, relative to the repository root. */
    public static final Path EXAMPLE_RULES = Path.of("shaper", "config", "rules.yaml");

    private ConfigurationDocs() {
    }

    public static void main(String[] args) throws IOException {
        if (args.length != 1) {
            System.err.println("usage: ConfigurationDocs path/to/repository-root");
            System.exit(2);
        }
        Path root = Path.of(args[0]);
        Files.writeString(root.resolve(DOCUMENT), generate(root), StandardCharsets.UTF_8);
    }

    /** The full document, for the repository at {@code root}. */
    public static String generate(Path root) throws IOException {
        String exampleRules = Files.readString(root.resolve(EXAMPLE_RULES), StandardCharsets.UTF_8);
        return new ConfigurationWriter(ShaperConfig.configDef(), exampleRules).write();
    }
}
