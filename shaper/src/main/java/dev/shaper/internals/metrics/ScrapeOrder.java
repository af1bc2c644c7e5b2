package dev.shaper.internals.metrics;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * The order {@code /metrics} lists its metric families in, for a person reading it: the shaper's records first
 * (passed, queued, released, rejected), then its queues, releases, capacity, admission and rules, its histograms
 * after its counters and gauges, and the JVM's and Kafka's last. Prometheus does not care about the order; a
 * {@code curl /metrics | grep shaper_ | head} does.
 */
public final class ScrapeOrder {

    /**
     * Name prefixes in reading order; a family takes the place of the longest prefix its name starts with, and
     * families of one place keep the registry's (alphabetical) order.
     */
    private static final List<String> PREFIXES = List.of(
            "shaper_records_passed", "shaper_records_queued", "shaper_records_released", "shaper_records_rejected",
            "shaper_records_", "shaper_queue_records", "shaper_queue_bytes", "shaper_release_", "shaper_capacity_",
            "shaper_admission_", "shaper_redis_failure", "shaper_rules_", "shaper_state_cache_", "shaper_",
            "shaper_queue_delay_seconds", "shaper_redis_latency_seconds", "");

    private ScrapeOrder() {
    }

    /** {@code scrape}, Prometheus' text format (a family per {@code # HELP} line and what follows), reordered. */
    public static String reorder(String scrape) {
        List<String> families = new ArrayList<>();
        StringBuilder family = new StringBuilder();
        for (String line : scrape.split("\n", -1)) {
            if (line.startsWith("# HELP ") && !family.isEmpty()) {
                families.add(family.toString());
                family.setLength(0);
            }
            if (!line.isEmpty()) {
                family.append(line).append('\n');
            }
        }
        if (!family.isEmpty()) {
            families.add(family.toString());
        }
        families.sort(Comparator.comparingInt(ScrapeOrder::place)); // stable: ties keep the registry's order
        return String.join("", families);
    }

    private static int place(String family) {
        String name = family.startsWith("# HELP ") ? family.substring(7).split("[ \n]", 2)[0] : "";
        int place = PREFIXES.size() - 1;
        int longest = -1;
        for (int i = 0; i < PREFIXES.size(); i++) {
            String prefix = PREFIXES.get(i);
            if (name.startsWith(prefix) && prefix.length() > longest) {
                longest = prefix.length();
                place = i;
            }
        }
        return place;
    }
}
