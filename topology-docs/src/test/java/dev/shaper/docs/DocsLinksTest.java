package dev.shaper.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every relative link in the README and the docs leads to a file that exists, and a link to a heading
 * ({@code file.md#anchor}) to a heading that exists, as GitHub names its anchors.
 */
class DocsLinksTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    /**
     * Pages the README's map links to before they are written. Remove a page from here once it exists: the test then
     * checks links to it like any other.
     */
    private static final Set<String> WRITTEN_ELSEWHERE = Set.of();

    private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");

    @Test
    void shouldLinkOnlyToFilesAndHeadingsThatExist() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path page : pages()) {
            Matcher link = LINK.matcher(withoutCode(read(page)));
            while (link.find()) {
                String target = link.group(1);
                if (target.matches("^[a-z]+:.*")) {
                    continue; // http:, https:, mailto:
                }
                String file = target.contains("#") ? target.substring(0, target.indexOf('#')) : target;
                String anchor = target.contains("#") ? target.substring(target.indexOf('#') + 1) : null;
                Path resolved = file.isEmpty() ? page : page.getParent().resolve(file).normalize();
                String relative = ROOT.relativize(resolved).toString().replace('\\', '/');
                if (WRITTEN_ELSEWHERE.contains(relative) && !Files.exists(resolved)) {
                    continue;
                }
                if (!Files.exists(resolved)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such file)");
                } else if (anchor != null && resolved.toString().endsWith(".md")
                        && !anchors(read(resolved)).contains(anchor)) {
                    broken.add(ROOT.relativize(page) + ": " + target + " (no such heading)");
                }
            }
        }
        assertThat(broken).as("broken links").isEmpty();
    }

    @Test
    void shouldNameAnchorsAsGitHubDoes() {
        assertThat(slug("Quick start against your cluster")).isEqualTo("quick-start-against-your-cluster");
        assertThat(slug("`shaper.shaping.rate`")).isEqualTo("shapershapingrate");
        assertThat(slug("Recovery times: how long a stopped instance's keys stand still"))
                .isEqualTo("recovery-times-how-long-a-stopped-instances-keys-stand-still");
        assertThat(slug("Metrics, health and per-key queries")).isEqualTo("metrics-health-and-per-key-queries");
    }

    /** The README, the docs and the modules' READMEs. */
    static List<Path> pages() throws IOException {
        List<Path> pages = new ArrayList<>(List.of(ROOT.resolve("README.md"), ROOT.resolve("producer-demo/README.md"),
                ROOT.resolve("shaper-bench/README.md"), ROOT.resolve("topology-docs/TOPOLOGY.md")));
        try (Stream<Path> docs = Files.walk(ROOT.resolve("docs"))) {
            docs.filter(p -> p.toString().endsWith(".md")).sorted().forEach(pages::add);
        }
        return pages;
    }

    /** The anchors of a page's headings, outside code blocks; a repeated heading also gets -1, -2, ... */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        for (String line : withoutCode(markdown).split("\n")) {
            if (line.matches("^#{1,6} .*")) {
                String slug = slug(line.replaceFirst("^#+ ", ""));
                String unique = slug;
                for (int i = 1; anchors.contains(unique); i++) {
                    unique = slug + "-" + i;
                }
                anchors.add(unique);
            }
        }
        return anchors;
    }

    /** GitHub's anchor of a heading: lower case, punctuation dropped (but - and _), spaces as hyphens. */
    static String slug(String heading) {
        return heading.trim().toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N} _-]", "").replace(' ', '-');
    }

    /** The text without fenced code blocks (their lines become empty) and without inline code spans. */
    static String withoutCode(String markdown) {
        StringBuilder out = new StringBuilder();
        boolean fenced = false;
        for (String line : markdown.split("\n", -1)) {
            if (line.trim().startsWith("```")) {
                fenced = !fenced;
                out.append('\n');
                continue;
            }
            out.append(fenced ? "" : line.matches("^#{1,6} .*") ? line : line.replaceAll("`[^`]*`", "``")).append('\n');
        }
        return out.toString();
    }

    private static String read(Path page) throws IOException {
        return Files.readString(page, StandardCharsets.UTF_8);
    }
}
