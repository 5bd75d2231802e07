package io.squall.kvgrid.pool;

/**
 * An intrusive doubly linked list of {@link KvBlock}s through their {@code prev}/{@code next} fields,
 * with O(1) add at either end, removal of any member and poll of the first. A block is in at most one
 * list at a time. Not thread-safe.
 */
final class BlockList {

    private KvBlock first;
    private KvBlock last;
    private int size;

    int size() {
        return size;
    }

    KvBlock peekFirst() {
        return first;
    }

    KvBlock pollFirst() {
        KvBlock block = first;
        if (block != null) {
            remove(block);
        }
        return block;
    }

    void addLast(KvBlock block) {
        block.prev = last;
        block.next = null;
        if (last == null) {
            first = block;
        } else {
            last.next = block;
        }
        last = block;
        size++;
    }

    void addFirst(KvBlock block) {
        block.next = first;
        block.prev = null;
        if (first == null) {
            last = block;
        } else {
            first.prev = block;
        }
        first = block;
        size++;
    }

    /** Unlinks {@code block}, which must be in this list. */
    void remove(KvBlock block) {
        if (block.prev == null) {
            first = block.next;
        } else {
            block.prev.next = block.next;
        }
        if (block.next == null) {
            last = block.prev;
        } else {
            block.next.prev = block.prev;
        }
        block.prev = null;
        block.next = null;
        size--;
    }
}
