package dev.shaper.deploy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.parsers.ParserConfigurationException;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.Node;
import org.xml.sax.SAXException;

/**
 * A module's container image as its {@code pom.xml} configures the jib-maven-plugin (the plugin of the module's
 * build, the base image from the parent's {@code pluginManagement} unless the module sets one), read with a DOM
 * parser: what the image runs and ships, without building it.
 */
final class JibImage {

    private static final Pattern PROPERTY = Pattern.compile("\\$\\{([^}]+)}");

    private final Path moduleDir;
    private final Element configuration;
    private final String baseImage;

    private JibImage(Path moduleDir, Element configuration, String baseImage) {
        this.moduleDir = moduleDir;
        this.configuration = configuration;
        this.baseImage = baseImage;
    }

    /** The image of the module in {@code moduleDir}, whose parent's pom is {@code moduleDir/../pom.xml}. */
    static JibImage of(Path moduleDir) throws IOException {
        Document module = parse(moduleDir.resolve("pom.xml"));
        Document parent = parse(moduleDir.resolve("..").resolve("pom.xml"));
        Element own = jibConfiguration(child(module.getDocumentElement(), "build"), "plugins")
                .orElseThrow(() -> new AssertionError(moduleDir + "/pom.xml configures no jib-maven-plugin"));
        Element managed = jibConfiguration(child(child(parent.getDocumentElement(), "build"), "pluginManagement"),
                "plugins").orElse(null);
        String from = text(child(child(own, "from"), "image"));
        if (from == null && managed != null) {
            from = text(child(child(managed, "from"), "image"));
        }
        return new JibImage(moduleDir, own, from == null ? null : resolve(from, parent, module));
    }

    /** The base image, properties resolved; null when none is configured (Jib's own default). */
    String baseImage() {
        return baseImage;
    }

    /** {@code container/user}: a uid, optionally {@code :gid}; null when not set (root). */
    String user() {
        return text(child(container(), "user"));
    }

    List<String> jvmFlags() {
        return texts(child(container(), "jvmFlags"));
    }

    List<String> args() {
        return texts(child(container(), "args"));
    }

    List<String> volumes() {
        return texts(child(container(), "volumes"));
    }

    List<Integer> ports() {
        return texts(child(container(), "ports")).stream().map(Integer::valueOf).toList();
    }

    /** {@code container/environment}: the variables the image sets. */
    Map<String, String> environment() {
        Map<String, String> env = new LinkedHashMap<>();
        Element environment = child(container(), "environment");
        if (environment != null) {
            for (Element variable : children(environment)) {
                env.put(variable.getTagName(), variable.getTextContent().trim());
            }
        }
        return env;
    }

    /** A directory of the module copied into the image: {@code from} (relative to the module) to {@code into}. */
    record ExtraDirectory(String from, String into) {
    }

    List<ExtraDirectory> extraDirectories() {
        List<ExtraDirectory> dirs = new ArrayList<>();
        Element paths = child(child(configuration, "extraDirectories"), "paths");
        if (paths != null) {
            for (Element path : children(paths)) {
                dirs.add(new ExtraDirectory(text(child(path, "from")), text(child(path, "into"))));
            }
        }
        return dirs;
    }

    /** {@code extraDirectories/permissions}: octal mode by path in the image. */
    Map<String, String> permissions() {
        Map<String, String> modes = new LinkedHashMap<>();
        Element permissions = child(child(configuration, "extraDirectories"), "permissions");
        if (permissions != null) {
            for (Element permission : children(permissions)) {
                modes.put(text(child(permission, "file")), text(child(permission, "mode")));
            }
        }
        return modes;
    }

    /**
     * Where the file at {@code imagePath} comes from in the module: the extra directory that has it, the one that
     * goes deepest into the image first (two may overlap, {@code /} and {@code /app/examples}); empty if none puts
     * one there.
     */
    Optional<Path> localFile(String imagePath) {
        List<ExtraDirectory> deepestFirst = new ArrayList<>(extraDirectories());
        deepestFirst.sort((a, b) -> Integer.compare(b.into().length(), a.into().length()));
        for (ExtraDirectory dir : deepestFirst) {
            String into = dir.into().endsWith("/") ? dir.into() : dir.into() + "/";
            Path local = moduleDir.resolve(dir.from()).resolve(imagePath.substring(Math.min(into.length(),
                    imagePath.length())));
            if (imagePath.startsWith(into) && java.nio.file.Files.exists(local)) {
                return Optional.of(local);
            }
        }
        return Optional.empty();
    }

    /** The settings file the image starts with (its only argument), in the module. */
    Path settingsFile() {
        List<String> args = args();
        if (args.size() != 1) {
            throw new AssertionError("the image's arguments should be its settings file alone: " + args);
        }
        return localFile(args.get(0)).orElseThrow(() -> new AssertionError("no extra directory puts "
                + args.get(0) + " into the image"));
    }

    /** The value of {@code -XX:<name>=<value>} among the JVM flags, if set. */
    Optional<String> jvmOption(String name) {
        String prefix = "-XX:" + name + "=";
        return jvmFlags().stream().filter(f -> f.startsWith(prefix)).map(f -> f.substring(prefix.length()))
                .reduce((first, second) -> second);
    }

    private Element container() {
        return child(configuration, "container");
    }

    private static Optional<Element> jibConfiguration(Element build, String pluginsName) {
        Element plugins = child(build, pluginsName);
        if (plugins == null) {
            return Optional.empty();
        }
        for (Element plugin : children(plugins)) {
            if ("jib-maven-plugin".equals(text(child(plugin, "artifactId")))) {
                return Optional.ofNullable(child(plugin, "configuration"));
            }
        }
        return Optional.empty();
    }

    private static String resolve(String value, Document... poms) {
        Matcher m = PROPERTY.matcher(value);
        StringBuilder resolved = new StringBuilder();
        while (m.find()) {
            String property = null;
            for (Document pom : poms) {
                String candidate = text(child(child(pom.getDocumentElement(), "properties"), m.group(1)));
                if (candidate != null) {
                    property = candidate;
                }
            }
            if (property == null) {
                throw new AssertionError("property " + m.group(1) + " is not defined in the poms");
            }
            m.appendReplacement(resolved, Matcher.quoteReplacement(property));
        }
        m.appendTail(resolved);
        return resolved.toString();
    }

    private static Document parse(Path pom) throws IOException {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            return factory.newDocumentBuilder().parse(pom.toFile());
        } catch (ParserConfigurationException | SAXException e) {
            throw new IOException("cannot parse " + pom, e);
        }
    }

    /** The first child element named {@code name}, or null (also when {@code parent} is null). */
    private static Element child(Element parent, String name) {
        if (parent == null) {
            return null;
        }
        for (Element e : children(parent)) {
            if (e.getTagName().equals(name)) {
                return e;
            }
        }
        return null;
    }

    private static List<Element> children(Element parent) {
        List<Element> elements = new ArrayList<>();
        for (Node n = parent.getFirstChild(); n != null; n = n.getNextSibling()) {
            if (n instanceof Element e) {
                elements.add(e);
            }
        }
        return elements;
    }

    private static String text(Element e) {
        return e == null ? null : e.getTextContent().trim();
    }

    private static List<String> texts(Element list) {
        return list == null ? List.of() : children(list).stream().map(JibImage::text).toList();
    }
}
