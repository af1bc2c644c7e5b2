package dev.shaper.testsupport;

import java.util.Map;
import java.util.TreeMap;

/** Reads sample values out of a Prometheus text-format scrape. */
public final class PrometheusText {

    private PrometheusText() {
    }

    /**
     * The value of the sample {@code name} whose labels include {@code labels}; fails if there is none, so a
     * renamed metric cannot pass as zero.
     */
    public static double value(String scrape, String name, Map<String, String> labels) {
        for (String line : scrape.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + " ") || line.startsWith(name + "{"))) {
                continue;
            }
            Map<String, String> found = labelsOf(line, name);
            if (found.entrySet().containsAll(labels.entrySet())) {
                return Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
            }
        }
        throw new AssertionError("no sample " + name + labels + " in the scrape:\n" + scrape);
    }

    /**
     * The sum of the samples {@code name} whose labels include {@code labels} (e.g. the heap's pools); fails if
     * there is none.
     */
    public static double sum(String scrape, String name, Map<String, String> labels) {
        double sum = 0;
        int found = 0;
        for (String line : scrape.split("\n")) {
            if (line.startsWith("#") || !(line.startsWith(name + " ") || line.startsWith(name + "{"))) {
                continue;
            }
            if (labelsOf(line, name).entrySet().containsAll(labels.entrySet())) {
                sum += Double.parseDouble(line.substring(line.lastIndexOf(' ') + 1));
                found++;
            }
        }
        if (found == 0) {
            throw new AssertionError("no sample " + name + labels + " in the scrape:\n" + scrape);
        }
        return sum;
    }

    public static double value(String scrape, String name) {
        return value(scrape, name, Map.of());
    }

    private static Map<String, String> labelsOf(String line, String name) {
        Map<String, String> labels = new TreeMap<>();
        if (line.charAt(name.length()) != '{') {
            return labels;
        }
        String inside = line.substring(name.length() + 1, line.indexOf('}'));
        for (String pair : inside.split(",")) {
            int eq = pair.indexOf('=');
            if (eq > 0) {
                labels.put(pair.substring(0, eq).trim(), pair.substring(eq + 1).trim().replace("\"", ""));
            }
        }
        return labels;
    }
}
