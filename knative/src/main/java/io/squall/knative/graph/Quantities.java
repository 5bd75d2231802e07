package io.squall.knative.graph;

import java.math.BigDecimal;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Kubernetes quantities ({@code 500m}, {@code 2}, {@code 8Gi}, {@code 4G}, {@code 1e3}) and byte sizes written as
 * quantities.
 */
public final class Quantities {

    /** The grammar Kubernetes accepts for a quantity. */
    public static final Pattern QUANTITY =
            Pattern.compile("^[+]?(\\d+(\\.\\d*)?|\\.\\d+)(([KMGTPE]i)|[numkMGTPE]|[eE][+-]?\\d+)?$");

    private static final Pattern BYTES = Pattern.compile("^(\\d+)(Ki|Mi|Gi|Ti|Pi|Ei|k|M|G|T|P|E)?$");
    private static final String[] BINARY_UNITS = {"Ei", "Pi", "Ti", "Gi", "Mi", "Ki"};

    private Quantities() {
    }

    /**
     * {@code 20Gi} → 21474836480, {@code 4G} → 4000000000; {@code null} when {@code text} is not a whole number
     * of bytes with an optional binary or decimal unit, or does not fit in a {@code long}.
     */
    public static Long bytes(String text) {
        Matcher m = BYTES.matcher(text);
        if (!m.matches()) {
            return null;
        }
        long multiplier = switch (m.group(2) == null ? "" : m.group(2)) {
            case "" -> 1L;
            case "Ki" -> 1L << 10;
            case "Mi" -> 1L << 20;
            case "Gi" -> 1L << 30;
            case "Ti" -> 1L << 40;
            case "Pi" -> 1L << 50;
            case "Ei" -> 1L << 60;
            case "k" -> 1_000L;
            case "M" -> 1_000_000L;
            case "G" -> 1_000_000_000L;
            case "T" -> 1_000_000_000_000L;
            case "P" -> 1_000_000_000_000_000L;
            default -> 1_000_000_000_000_000_000L;
        };
        try {
            return Math.multiplyExact(Long.parseLong(m.group(1)), multiplier);
        } catch (ArithmeticException | NumberFormatException e) {
            return null;
        }
    }

    /** The shortest exact binary quantity: 21474836480 → {@code 20Gi}; 1000 → {@code 1000}. */
    public static String formatBytes(long bytes) {
        for (int i = 0; i < BINARY_UNITS.length; i++) {
            long unit = 1L << (10 * (BINARY_UNITS.length - i));
            if (bytes != 0 && bytes % unit == 0) {
                return (bytes / unit) + BINARY_UNITS[i];
            }
        }
        return Long.toString(bytes);
    }

    /** The value of a quantity matching {@link #QUANTITY}: {@code 500m} → 0.5, {@code 1Ki} → 1024, {@code 1e3} → 1000. */
    public static BigDecimal value(String quantity) {
        Matcher m = QUANTITY.matcher(quantity);
        if (!m.matches()) {
            throw new IllegalArgumentException("not a Kubernetes quantity: " + quantity);
        }
        BigDecimal number = new BigDecimal(m.group(1));
        String suffix = m.group(3) == null ? "" : m.group(3);
        if (suffix.startsWith("e") || suffix.startsWith("E")) {
            return number.scaleByPowerOfTen(Integer.parseInt(suffix.substring(1)));
        }
        return switch (suffix) {
            case "" -> number;
            case "n" -> number.scaleByPowerOfTen(-9);
            case "u" -> number.scaleByPowerOfTen(-6);
            case "m" -> number.scaleByPowerOfTen(-3);
            case "k" -> number.scaleByPowerOfTen(3);
            case "M" -> number.scaleByPowerOfTen(6);
            case "G" -> number.scaleByPowerOfTen(9);
            case "T" -> number.scaleByPowerOfTen(12);
            case "P" -> number.scaleByPowerOfTen(15);
            case "E" -> number.scaleByPowerOfTen(18);
            default -> number.multiply(BigDecimal.valueOf(2).pow(10 * (1 + "KMGTPE".indexOf(suffix.charAt(0)))));
        };
    }
}
