package dev.shaper.cli;

/** How a command prints its answer: a table for people (the default) or JSON for scripts. */
enum OutputFormat {
    /** Aligned columns under a header line. */
    TABLE,
    /** One JSON document, for {@code jq} and scripts. */
    JSON
}
