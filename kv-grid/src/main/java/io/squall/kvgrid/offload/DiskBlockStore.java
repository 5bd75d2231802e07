package io.squall.kvgrid.offload;

import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicLong;
import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * G3: one file per block in a directory, named by the block's hash ({@code <16 hex digits>.kvb}),
 * bounded to {@code capacityBytes / fileBytes} files and evicting the least recently used.
 *
 * <p>File format, little-endian: magic {@code "SQKV"} (int), format version (int), chained hash
 * (long), payload length (int), CRC32C of the payload (int), then the payload. A read checks all four
 * against the file name and the bytes; any mismatch, a short file or a vanished file drops the block and
 * reports it {@link ReadResult#DISCARDED} or missing, never returns wrong bytes. Files are written to a
 * temporary name and moved into place atomically, so a reader never sees half a file. The index is in
 * memory: a new store empties its directory of earlier {@code .kvb} files (the tier is a cache, not a
 * durable store, and is not fsynced).
 *
 * <p>Thread-safe: the index is guarded by the store's lock, which is never held while a file's bytes are
 * written or read (only while a finished file is renamed into place or deleted), so {@link #contains} and
 * {@link #touch} answer from memory at once and reads on one thread do not wait for writes on another. A
 * read racing with a replacement or an eviction of the same block reads the old file or finds none
 * (missing); only a file that fails verification while still the indexed copy is dropped as discarded.
 */
public final class DiskBlockStore implements BlockStore {

    private static final Logger LOG = LoggerFactory.getLogger(DiskBlockStore.class);
    static final String SUFFIX = ".kvb";
    private static final int MAGIC = 0x564B5153; // "SQKV" read little-endian
    private static final int VERSION = 1;
    static final int HEADER_BYTES = 24;

    private final Path directory;
    private final long blockBytes;
    private final long maxBlocks;
    /** Held hashes → the version of their file, in access order: the first is the least recently used. */
    private final LinkedHashMap<BlockHash, Long> index = new LinkedHashMap<>(16, 0.75f, true);
    /** Numbers file versions and temporary files, so concurrent writes never share a name. */
    private final AtomicLong versions = new AtomicLong();

    /**
     * @param directory     created if absent; earlier {@code .kvb} files in it are deleted
     * @param capacityBytes bound on the files' total size, ≥ one file ({@code blockBytes + 24})
     * @param blockBytes    bytes per page, &gt; 0
     * @throws UncheckedIOException if the directory cannot be prepared
     */
    public DiskBlockStore(Path directory, long capacityBytes, long blockBytes) {
        this.directory = Objects.requireNonNull(directory, "directory");
        if (blockBytes <= 0 || blockBytes > Integer.MAX_VALUE - HEADER_BYTES) {
            throw new IllegalArgumentException("blockBytes must be > 0 and fit a file");
        }
        this.blockBytes = blockBytes;
        this.maxBlocks = capacityBytes / (blockBytes + HEADER_BYTES);
        if (maxBlocks < 1) {
            throw new IllegalArgumentException("capacityBytes must hold at least one block file");
        }
        try {
            Files.createDirectories(directory);
            try (DirectoryStream<Path> stale = Files.newDirectoryStream(directory, "*" + SUFFIX)) {
                for (Path file : stale) {
                    Files.delete(file);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot prepare the disk tier directory", e);
        }
    }

    @Override
    public Tier tier() {
        return Tier.G3;
    }

    @Override
    public long blockBytes() {
        return blockBytes;
    }

    /** The file holding {@code hash} (whether or not it exists). */
    public Path fileOf(BlockHash hash) {
        return directory.resolve(String.format("%016x", hash.value()) + SUFFIX);
    }

    @Override
    public List<BlockHash> put(BlockHash hash, MemorySegment page) {
        Objects.requireNonNull(hash, "hash");
        HostBlockStore.checkPage(page, blockBytes);
        ByteBuffer payload = page.asByteBuffer();
        CRC32C crc = new CRC32C();
        crc.update(payload.duplicate());
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN)
                .putInt(MAGIC).putInt(VERSION).putLong(hash.value()).putInt((int) blockBytes)
                .putInt((int) crc.getValue()).flip();
        Path target = fileOf(hash);
        long version = versions.incrementAndGet();
        Path temporary = target.resolveSibling(target.getFileName() + "." + version + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE,
                    StandardOpenOption.TRUNCATE_EXISTING, StandardOpenOption.WRITE)) {
                while (header.hasRemaining() || payload.hasRemaining()) {
                    channel.write(new ByteBuffer[] {header, payload});
                }
            }
        } catch (IOException e) {
            discard(temporary, e);
            throw new UncheckedIOException("cannot write block file " + target.getFileName(), e);
        }
        synchronized (this) {
            try {
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (IOException e) {
                discard(temporary, e);
                throw new UncheckedIOException("cannot write block file " + target.getFileName(), e);
            }
            index.put(hash, version);
            List<BlockHash> evicted = new ArrayList<>();
            Iterator<BlockHash> eldest = index.keySet().iterator();
            while (index.size() > maxBlocks) {
                BlockHash victim = eldest.next();
                eldest.remove();
                deleteQuietly(fileOf(victim));
                evicted.add(victim);
            }
            return evicted;
        }
    }

    @Override
    public ReadResult read(BlockHash hash, MemorySegment target) {
        Objects.requireNonNull(hash, "hash");
        Long version;
        synchronized (this) {
            version = index.get(hash); // marks it used
        }
        if (version == null) {
            return ReadResult.MISSING;
        }
        if (readVerified(hash, target.asSlice(0, blockBytes).asByteBuffer())) {
            return ReadResult.HIT;
        }
        synchronized (this) {
            if (!version.equals(index.get(hash))) {
                return ReadResult.MISSING; // replaced or evicted while we read: not a corrupt copy
            }
            index.remove(hash);
            deleteQuietly(fileOf(hash));
            return ReadResult.DISCARDED;
        }
    }

    private boolean readVerified(BlockHash hash, ByteBuffer payload) {
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES).order(ByteOrder.LITTLE_ENDIAN);
        try (FileChannel channel = FileChannel.open(fileOf(hash), StandardOpenOption.READ)) {
            if (channel.size() != HEADER_BYTES + blockBytes) {
                return false;
            }
            while (header.hasRemaining() || payload.hasRemaining()) {
                if (channel.read(new ByteBuffer[] {header, payload}) < 0) {
                    return false;
                }
            }
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read block file " + fileOf(hash).getFileName(), e);
        }
        header.flip();
        if (header.getInt() != MAGIC || header.getInt() != VERSION || header.getLong() != hash.value()
                || header.getInt() != blockBytes) {
            return false;
        }
        int expectedCrc = header.getInt();
        CRC32C crc = new CRC32C();
        crc.update(payload.flip());
        return (int) crc.getValue() == expectedCrc;
    }

    @Override
    public synchronized boolean contains(BlockHash hash) {
        return index.containsKey(hash);
    }

    @Override
    public synchronized boolean touch(BlockHash hash) {
        return index.get(Objects.requireNonNull(hash, "hash")) != null;
    }

    @Override
    public synchronized boolean remove(BlockHash hash) {
        boolean held = index.remove(hash) != null;
        if (held) {
            deleteQuietly(fileOf(hash));
        }
        return held;
    }

    @Override
    public synchronized long blockCount() {
        return index.size();
    }

    /** Deletes every block file. */
    @Override
    public synchronized void close() {
        index.keySet().forEach(hash -> deleteQuietly(fileOf(hash)));
        index.clear();
    }

    /**
     * Removes what a failed write left behind. A disk that fails the write (full, gone, read-only) mostly fails this
     * too: that joins the write's error, which the caller reports, rather than a log line of its own per block.
     */
    private static void discard(Path temporary, IOException writeError) {
        try {
            Files.deleteIfExists(temporary);
        } catch (IOException e) {
            writeError.addSuppressed(e);
        }
    }

    private static void deleteQuietly(Path file) {
        try {
            Files.deleteIfExists(file);
        } catch (IOException e) {
            // A file we could not delete is unreachable: it is no longer in the index and a later put
            // of the same hash replaces it atomically.
            LOG.warn("cannot delete block file {}: {}", file, e.toString());
        }
    }
}
