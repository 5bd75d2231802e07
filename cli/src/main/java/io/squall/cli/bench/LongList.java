package io.squall.cli.bench;

import java.util.Arrays;

/** A growable list of primitive longs. Not thread-safe. */
final class LongList {

    private long[] values = new long[64];
    private int size;

    void add(long value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    void addAll(long[] more) {
        for (long value : more) {
            add(value);
        }
    }

    int size() {
        return size;
    }

    long[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
