package io.squall.kvgrid.offload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.squall.kvgrid.BlockHash;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class DiskBlockStoreTest extends BlockStoreContract {

    @TempDir
    Path directory;

    @Override
    BlockStore newStore(int blocks) {
        return new DiskBlockStore(directory, blocks * (BLOCK_BYTES + DiskBlockStore.HEADER_BYTES), BLOCK_BYTES);
    }

    private Path fileOf(long hash) {
        return ((DiskBlockStore) store).fileOf(new BlockHash(hash));
    }

    @Test
    void aFlippedPayloadByteIsReportedDiscardedNeverReturned() throws IOException {
        store.put(new BlockHash(7), Pages.random(random, BLOCK_BYTES));
        byte[] file = Files.readAllBytes(fileOf(7));
        int at = DiskBlockStore.HEADER_BYTES + random.nextInt((int) BLOCK_BYTES);
        file[at] ^= 0x10;
        Files.write(fileOf(7), file);

        assertThat(store.read(new BlockHash(7), target())).as("seed %d", seed).isEqualTo(ReadResult.DISCARDED);
        assertThat(store.contains(new BlockHash(7))).isFalse();
        assertThat(fileOf(7)).doesNotExist();
        assertThat(store.read(new BlockHash(7), target())).isEqualTo(ReadResult.MISSING);
    }

    /** A disk that went away under the store (its directory is now a plain file): every write fails, once. */
    @Test
    void aWriteToAVanishedDirectoryFailsWithOneErrorThatCarriesTheCleanUpsToo() throws IOException {
        store.put(new BlockHash(1), Pages.random(random, BLOCK_BYTES));
        Path aside = Files.move(directory, directory.resolveSibling(directory.getFileName() + ".aside"));
        Files.writeString(directory, "not a directory");
        try {
            assertThatThrownBy(() -> store.put(new BlockHash(2), Pages.random(random, BLOCK_BYTES)))
                    .isInstanceOf(UncheckedIOException.class)
                    .satisfies(e -> assertThat(e.getCause().getSuppressed()).as("the failed clean-up, not a log line")
                            .singleElement().isInstanceOf(IOException.class));
            assertThat(store.contains(new BlockHash(2))).isFalse();
        } finally {
            Files.delete(directory);
            Files.move(aside, directory);
        }
    }

    @Test
    void aTruncatedOrSwappedFileIsReportedDiscarded() throws IOException {
        store.put(new BlockHash(1), Pages.random(random, BLOCK_BYTES));
        store.put(new BlockHash(2), Pages.random(random, BLOCK_BYTES));
        Files.copy(fileOf(1), fileOf(2), StandardCopyOption.REPLACE_EXISTING);
        byte[] file = Files.readAllBytes(fileOf(1));
        Files.write(fileOf(1), Arrays.copyOf(file, file.length - 1));

        assertThat(store.read(new BlockHash(1), target())).isEqualTo(ReadResult.DISCARDED);
        assertThat(store.read(new BlockHash(2), target())).isEqualTo(ReadResult.DISCARDED);
        assertThat(store.blockCount()).isZero();
    }

    @Test
    void aNewStoreStartsEmptyAndEvictionDeletesFiles() throws IOException {
        for (long hash = 1; hash <= 4; hash++) {
            store.put(new BlockHash(hash), Pages.random(random, BLOCK_BYTES));
        }
        assertThat(fileOf(1)).doesNotExist();
        try (var files = Files.list(directory)) {
            assertThat(files.toList()).hasSize(3);
        }
        try (BlockStore reopened = newStore(3)) {
            assertThat(reopened.read(new BlockHash(2), target())).isEqualTo(ReadResult.MISSING);
            try (var files = Files.list(directory)) {
                assertThat(files.toList()).isEmpty();
            }
        }
    }
}
