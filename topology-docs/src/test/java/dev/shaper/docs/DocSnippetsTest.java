package dev.shaper.docs;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assumptions.assumeThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The code samples of the docs are copies of code that runs. A sample follows a marker that names its source,
 * {@code <!-- snippet: ../path/File.java#region -->}, and must be identical to the lines between the comments
 * {@code [region]} and {@code [/region]} of that file (without their common indentation), or to the whole file
 * without {@code #region}. The Java sources are compiled and run by producer-demo's {@code ClientExamplesIT}; the
 * Python ones are compiled here where {@code python3} exists (confluent-kafka cannot be installed here, so they are
 * not run).
 */
class DocSnippetsTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern MARKER = Pattern.compile("<!-- snippet: (\\S+?)(?:#(\\S+))? -->\\s*\\n```\\w*\\n(.*?)```",
            Pattern.DOTALL);
    private static final Path PYTHON_EXAMPLES = ROOT.resolve("docs/examples/python");

    @Test
    void shouldShowExactlyTheCodeOfTheSourcesTheSamplesName() throws IOException {
        List<String> stale = new ArrayList<>();
        int samples = 0;
        for (Path page : DocsLinksTest.pages()) {
            Matcher sample = MARKER.matcher(Files.readString(page, StandardCharsets.UTF_8));
            while (sample.find()) {
                samples++;
                Path source = page.getParent().resolve(sample.group(1)).normalize();
                String expected = region(source, sample.group(2));
                if (!sample.group(3).equals(expected)) {
                    stale.add(ROOT.relativize(page) + ": the sample of " + sample.group(1)
                            + (sample.group(2) == null ? "" : "#" + sample.group(2)) + " differs from the source; it"
                            + " should read:\n" + expected);
                }
            }
        }
        assertThat(stale).as("samples that are not copies of their source").isEmpty();
        assertThat(samples).as("samples checked").isPositive();
    }

    @Test
    void shouldCompileThePythonExamples() throws Exception {
        assumeThat(python3()).as("python3 on the PATH").isTrue();
        List<String> command = new ArrayList<>(List.of("python3", "-m", "py_compile"));
        try (Stream<Path> files = Files.list(PYTHON_EXAMPLES)) {
            files.filter(p -> p.toString().endsWith(".py")).sorted().forEach(p -> command.add(p.toString()));
        }
        assertThat(command).hasSizeGreaterThan(3);
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true);
        // The compiled files go to target/, not next to the examples.
        builder.environment().put("PYTHONPYCACHEPREFIX", Path.of("target", "pycache").toAbsolutePath().toString());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(process.exitValue()).as(output).isZero();
    }

    @Test
    void shouldCutARegionWithoutItsIndentation() throws IOException {
        Path source = Files.createTempFile("snippet", ".java");
        Files.writeString(source, "class A {\n    // [r]\n    int a;\n      int b;\n    // [/r]\n}\n");

        assertThat(region(source, "r")).isEqualTo("int a;\n  int b;\n");
        assertThat(region(source, null)).startsWith("class A {");
        Files.delete(source);
    }

    /** The lines between {@code [region]} and {@code [/region]}, without their common indentation. */
    static String region(Path source, String region) throws IOException {
        String text = Files.readString(source, StandardCharsets.UTF_8);
        if (region == null) {
            return text;
        }
        List<String> lines = new ArrayList<>();
        boolean inside = false;
        for (String line : text.split("\n", -1)) {
            if (line.matches("\\s*(//|#) \\[/" + Pattern.quote(region) + "]\\s*")) {
                inside = false;
            } else if (inside) {
                lines.add(line);
            } else if (line.matches("\\s*(//|#) \\[" + Pattern.quote(region) + "]\\s*")) {
                inside = true;
                lines.clear();
            }
        }
        assertThat(lines).as("the region " + region + " of " + source).isNotEmpty();
        int indent = lines.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length())
                .min().orElse(0);
        StringBuilder out = new StringBuilder();
        lines.forEach(l -> out.append(l.isBlank() ? "" : l.substring(indent)).append('\n'));
        return out.toString();
    }

    private static boolean python3() {
        try {
            return new ProcessBuilder("python3", "--version").redirectErrorStream(true).start().waitFor() == 0;
        } catch (IOException | InterruptedException e) {
            return false;
        }
    }
}
