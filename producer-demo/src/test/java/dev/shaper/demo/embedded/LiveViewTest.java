package dev.shaper.demo.embedded;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

class LiveViewTest {

    private final ByteArrayOutputStream console = new ByteArrayOutputStream();
    private final PrintStream out = new PrintStream(console, true, StandardCharsets.UTF_8);

    private String[] lines() {
        return console.toString(StandardCharsets.UTF_8).split("\n");
    }

    @Test
    void shouldShowTheDatabaseRateAgainstTheCapacityWhenATotalRateIsSet() {
        // Given: a view of a demo whose database takes 40/s
        LiveView view = new LiveView(out, 40);

        // When: the first second, in which the database committed 30 rows
        view.printHeader();
        view.show(new Sample(1_000, 50, 30, new TreeMap<>(), 30));

        // Then: the heading names the capacity, the line says how much of it the database used
        assertThat(lines()[0]).contains("db rows/s", "of 40/s");
        assertThat(lines()[1]).containsPattern(" 30 +75% ");
    }

    @Test
    void shouldShowTheCapacityTheLoopAppliesWhenItIsAdaptive() {
        LiveView view = new LiveView(out, 60, true);

        view.printHeader();
        view.show(new Sample(1_000, 50, 30, new TreeMap<>(), 30, 42.3));

        assertThat(lines()[0]).contains("of 60/s", "capacity/s");
        assertThat(lines()[1]).containsPattern(" 30 +50% +42 ");
    }

    @Test
    void shouldLeaveTheCapacityOutWhenNoTotalRateIsSet() {
        LiveView view = new LiveView(out, 0);

        view.printHeader();
        view.show(new Sample(1_000, 50, 30, new TreeMap<>(), 30));

        assertThat(lines()[0]).contains("db rows/s").doesNotContain("of ");
        assertThat(lines()[1]).doesNotContain("%");
    }
}
