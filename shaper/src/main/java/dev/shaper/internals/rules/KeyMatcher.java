package dev.shaper.internals.rules;

import java.util.regex.Pattern;

/** How a rule picks its keys. Keys are compared as UTF-8 text. */
public sealed interface KeyMatcher {

    boolean matches(String key);

    /** The matcher as it is written in a rules file, e.g. {@code prefix: "bulk-"}. */
    String describe();

    /** The key equals the text. */
    record Exact(String text) implements KeyMatcher {
        public boolean matches(String key) {
            return key.equals(text);
        }

        public String describe() {
            return "exact: \"" + text + "\"";
        }
    }

    /** The key starts with the text. */
    record Prefix(String text) implements KeyMatcher {
        public boolean matches(String key) {
            return key.startsWith(text);
        }

        public String describe() {
            return "prefix: \"" + text + "\"";
        }
    }

    /** The whole key matches a regular expression ({@link Pattern} syntax). */
    record Regex(Pattern pattern) implements KeyMatcher {
        public boolean matches(String key) {
            return pattern.matcher(key).matches();
        }

        public String describe() {
            return "regex: \"" + pattern.pattern() + "\"";
        }
    }

    /** The whole key matches a glob: {@code *} is any run of characters, {@code ?} any one character. */
    record Glob(String glob, Pattern pattern) implements KeyMatcher {
        public static Glob of(String glob) {
            StringBuilder regex = new StringBuilder();
            StringBuilder literal = new StringBuilder();
            for (char c : glob.toCharArray()) {
                if (c == '*' || c == '?') {
                    if (literal.length() > 0) {
                        regex.append(Pattern.quote(literal.toString()));
                        literal.setLength(0);
                    }
                    regex.append(c == '*' ? ".*" : ".");
                } else {
                    literal.append(c);
                }
            }
            if (literal.length() > 0) {
                regex.append(Pattern.quote(literal.toString()));
            }
            return new Glob(glob, Pattern.compile(regex.toString(), Pattern.DOTALL));
        }

        public boolean matches(String key) {
            return pattern.matcher(key).matches();
        }

        public String describe() {
            return "glob: \"" + glob + "\"";
        }
    }
}
