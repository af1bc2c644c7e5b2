package dev.shaper.demo.cli;

import java.util.Arrays;
import java.util.stream.Collectors;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.TypeConversionException;

/** The traffic patterns {@code produce --pattern} offers, by their command-line names. */
public enum PatternType {
    STEADY("steady"),
    BURSTS("bursts"),
    RAMP("ramp"),
    ON_OFF("on-off");

    private final String optionValue;

    PatternType(String optionValue) {
        this.optionValue = optionValue;
    }

    @Override
    public String toString() {
        return optionValue;
    }

    /** Reads {@code steady}, {@code bursts}, {@code ramp} or {@code on-off} (any case). */
    public static final class Converter implements ITypeConverter<PatternType> {
        @Override
        public PatternType convert(String value) {
            return Arrays.stream(values()).filter(p -> p.optionValue.equalsIgnoreCase(value.trim())).findFirst()
                    .orElseThrow(() -> new TypeConversionException("expected one of "
                            + Arrays.stream(values()).map(PatternType::toString).collect(Collectors.joining(", "))
                            + ", got '" + value + "'"));
        }
    }
}
