package io.squall.kvgrid.index;

/** Keeps the oracle honest: it must pass the same contract. */
class ReferenceRadixIndexTest extends RadixIndexContract {

    @Override
    protected RadixIndex newIndex() {
        return new ReferenceRadixIndex();
    }
}
