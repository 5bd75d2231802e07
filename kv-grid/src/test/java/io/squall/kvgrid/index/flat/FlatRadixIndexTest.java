package io.squall.kvgrid.index.flat;

import static org.assertj.core.api.Assertions.assertThat;

import io.squall.kvgrid.index.RadixIndex;
import io.squall.kvgrid.index.RadixIndexContract;
import io.squall.kvgrid.index.RandomEvents;
import io.squall.kvgrid.index.ReferenceRadixIndex;
import java.util.Random;
import org.junit.jupiter.api.Test;

class FlatRadixIndexTest extends RadixIndexContract {

    @Override
    protected RadixIndex newIndex() {
        return new FlatRadixIndex(16); // tiny, so the tests exercise resizing
    }

    @Test
    void agreesWithTheReferenceOnRandomEventStreams() {
        agreesWithTheReference(12); // one bit-set word: the register walk
    }

    @Test
    void agreesWithTheReferenceBeyondOneWordOfWorkers() {
        agreesWithTheReference(70); // two words: the general walk
    }

    private static void agreesWithTheReference(int workers) {
        long seed = System.nanoTime();
        System.out.println("FlatRadixIndexTest workers=" + workers + " seed=" + seed);
        RandomEvents events = new RandomEvents(new Random(seed), workers, 40);
        FlatRadixIndex flat = new FlatRadixIndex(16);
        ReferenceRadixIndex reference = new ReferenceRadixIndex();

        for (int step = 0; step < 20_000; step++) {
            var event = events.next();
            flat.prefetch(event);
            if (step % 7 == 0) {
                flat.prefetch(events.next()); // a hint for an event never applied changes nothing
            }
            assertThat(flat.apply(event)).as("step %d (seed %d)", step, seed).isEqualTo(reference.apply(event));
            if (step % 50 == 0) {
                var prompt = events.prompt();
                assertThat(flat.findMatches(prompt)).as("step %d (seed %d)", step, seed).isEqualTo(reference.findMatches(prompt));
            }
            if (step % 997 == 0) {
                var worker = events.worker();
                flat.removeWorker(worker);
                reference.removeWorker(worker);
                events.forget(worker);
            }
        }
        assertThat(flat.workers()).isEqualTo(reference.workers());
    }
}
