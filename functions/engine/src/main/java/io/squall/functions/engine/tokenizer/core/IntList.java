package io.squall.functions.engine.tokenizer.core;

import java.util.Arrays;

/** A growable list of {@code int}s without boxing. Not thread-safe. */
public final class IntList {

    private int[] values;
    private int size;

    public IntList() {
        this(16);
    }

    public IntList(int capacity) {
        values = new int[Math.max(capacity, 4)];
    }

    public void add(int value) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = value;
    }

    public void addAll(int[] more) {
        if (size + more.length > values.length) {
            values = Arrays.copyOf(values, Math.max(size * 2, size + more.length));
        }
        System.arraycopy(more, 0, values, size, more.length);
        size += more.length;
    }

    public int get(int index) {
        if (index >= size) {
            throw new IndexOutOfBoundsException("index " + index + " of " + size);
        }
        return values[index];
    }

    public int size() {
        return size;
    }

    /** A copy of the values added so far. */
    public int[] toArray() {
        return Arrays.copyOf(values, size);
    }
}
