package io.squall.functions.engine.gguf;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The metadata of a GGUF file: typed key/value pairs in file order. Getters coerce between numeric
 * types where no information is lost; a missing key or a value of the wrong kind gives an
 * {@link IllegalArgumentException} naming the key. Immutable and thread-safe once built.
 */
public final class GgufMetadata {

    private final Map<String, GgufValue> entries;

    public GgufMetadata(Map<String, GgufValue> entries) {
        this.entries = Collections.unmodifiableMap(new LinkedHashMap<>(entries));
    }

    /** Keys in file order. */
    public Set<String> keys() {
        return entries.keySet();
    }

    /** Every entry, in file order. */
    public Map<String, GgufValue> entries() {
        return entries;
    }

    public boolean contains(String key) {
        return entries.containsKey(key);
    }

    /** The typed value of {@code key}, or empty. */
    public Optional<GgufValue> find(String key) {
        return Optional.ofNullable(entries.get(key));
    }

    /** The raw value of {@code key} (see {@link GgufValue} for its Java type). */
    public Object get(String key) {
        return require(key).value();
    }

    public String getString(String key) {
        return asString(key, require(key));
    }

    public Optional<String> findString(String key) {
        GgufValue value = entries.get(key);
        return value == null ? Optional.empty() : Optional.of(asString(key, value));
    }

    public long getLong(String key) {
        return asLong(key, require(key));
    }

    public long getLong(String key, long defaultValue) {
        GgufValue value = entries.get(key);
        return value == null ? defaultValue : asLong(key, value);
    }

    public int getInt(String key) {
        return toInt(key, getLong(key));
    }

    public int getInt(String key, int defaultValue) {
        GgufValue value = entries.get(key);
        return value == null ? defaultValue : toInt(key, asLong(key, value));
    }

    public float getFloat(String key) {
        return asFloat(key, require(key));
    }

    public float getFloat(String key, float defaultValue) {
        GgufValue value = entries.get(key);
        return value == null ? defaultValue : asFloat(key, value);
    }

    public boolean getBoolean(String key, boolean defaultValue) {
        GgufValue value = entries.get(key);
        if (value == null) {
            return defaultValue;
        }
        if (value.value() instanceof Boolean b) {
            return b;
        }
        throw wrongType(key, value, "a boolean");
    }

    public String[] getStringArray(String key) {
        GgufValue value = require(key);
        if (value.value() instanceof String[] strings) {
            return strings;
        }
        throw wrongType(key, value, "an array of strings");
    }

    public float[] getFloatArray(String key) {
        GgufValue value = require(key);
        return switch (value.value()) {
            case float[] floats -> floats;
            case double[] doubles -> {
                float[] floats = new float[doubles.length];
                for (int i = 0; i < doubles.length; i++) {
                    floats[i] = (float) doubles[i];
                }
                yield floats;
            }
            default -> throw wrongType(key, value, "an array of floats");
        };
    }

    /** An array of any integer type as {@code int[]}; unsigned 8- and 16-bit elements are zero-extended. */
    public int[] getIntArray(String key) {
        GgufValue value = require(key);
        boolean unsigned = value.elementType() == GgufValueType.UINT8 || value.elementType() == GgufValueType.UINT16;
        return switch (value.value()) {
            case int[] ints -> ints;
            case byte[] bytes -> {
                int[] ints = new int[bytes.length];
                for (int i = 0; i < bytes.length; i++) {
                    ints[i] = unsigned ? Byte.toUnsignedInt(bytes[i]) : bytes[i];
                }
                yield ints;
            }
            case short[] shorts -> {
                int[] ints = new int[shorts.length];
                for (int i = 0; i < shorts.length; i++) {
                    ints[i] = unsigned ? Short.toUnsignedInt(shorts[i]) : shorts[i];
                }
                yield ints;
            }
            case long[] longs -> {
                int[] ints = new int[longs.length];
                for (int i = 0; i < longs.length; i++) {
                    ints[i] = toInt(key, longs[i]);
                }
                yield ints;
            }
            default -> throw wrongType(key, value, "an array of integers");
        };
    }

    private GgufValue require(String key) {
        GgufValue value = entries.get(key);
        if (value == null) {
            throw new IllegalArgumentException("GGUF metadata has no key '" + key + "'");
        }
        return value;
    }

    private static String asString(String key, GgufValue value) {
        if (value.value() instanceof String s) {
            return s;
        }
        throw wrongType(key, value, "a string");
    }

    private static long asLong(String key, GgufValue value) {
        return switch (value.value()) {
            case Integer i -> i;
            case Long l -> l;
            default -> throw wrongType(key, value, "an integer");
        };
    }

    private static float asFloat(String key, GgufValue value) {
        return switch (value.value()) {
            case Float f -> f;
            case Double d -> d.floatValue();
            case Integer i -> i;
            case Long l -> l;
            default -> throw wrongType(key, value, "a number");
        };
    }

    private static int toInt(String key, long value) {
        if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("GGUF metadata '" + key + "' = " + value + " does not fit an int");
        }
        return (int) value;
    }

    private static IllegalArgumentException wrongType(String key, GgufValue value, String expected) {
        String actual = value.type() == GgufValueType.ARRAY ? "an array of " + value.elementType() : value.type().toString();
        return new IllegalArgumentException("GGUF metadata '" + key + "' is " + actual + ", expected " + expected);
    }
}
