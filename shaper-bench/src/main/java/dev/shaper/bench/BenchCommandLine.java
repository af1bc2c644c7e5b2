package dev.shaper.bench;

import java.util.List;
import java.util.function.Function;

/**
 * The command line of the benchmarks' entry points: {@code --help} prints the usage, options the parser refuses end
 * the JVM with status 2 and the parser's reason.
 */
public final class BenchCommandLine {

    private BenchCommandLine() {
    }

    /**
     * The options {@code parse} reads from {@code args}, or null once the usage is printed for {@code --help}.
     *
     * @param program names the benchmark in the message of refused options
     * @param parse   throws {@link IllegalArgumentException} with the reason for options it refuses
     */
    public static <T> T options(String[] args, String usage, String program, Function<String[], T> parse) {
        if (List.of(args).contains("--help")) {
            System.out.println(usage);
            return null;
        }
        try {
            return parse.apply(args);
        } catch (IllegalArgumentException e) {
            System.err.println(program + ": " + e.getMessage());
            System.exit(2);
            return null;
        }
    }
}
