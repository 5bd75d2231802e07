package io.squall.kvgrid.grid;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.squall.kvgrid.BlockHash;
import io.squall.kvgrid.Tier;
import io.squall.kvgrid.offload.BlockStore;
import io.squall.kvgrid.offload.ReadResult;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Objects;
import java.util.zip.CRC32C;

/**
 * G4: block pages in the distributed map {@value #MAP_NAME} ({@code IMap<Long, byte[]>} keyed by the
 * chained hash), shared by every worker, bounded per member and backed up as {@link GridMembers#config}
 * sets. Each value is {@code hash (long) ‖ CRC32C of the page (int) ‖ page}, big-endian, written in one
 * {@code set}; a read checks length, hash and checksum and returns the exact page or reports it
 * missing ({@link ReadResult#DISCARDED} after deleting a bad value) — never other bytes.
 *
 * <p>The grid evicts on its own, so {@link #put} reports no evictions; a block the grid dropped shows up
 * as {@link ReadResult#MISSING}. Thread-safe; every call is a blocking remote call.
 */
public final class GridBlockStore implements BlockStore {

    /** The distributed map's name; {@link GridMembers#config} bounds it and sets its backups. */
    public static final String MAP_NAME = "squall-kv-blocks";
    private static final int HEADER_BYTES = Long.BYTES + Integer.BYTES;

    private final IMap<Long, byte[]> map;
    private final long blockBytes;

    /** @param blockBytes bytes per page, &gt; 0 and small enough for one array */
    public GridBlockStore(HazelcastInstance member, long blockBytes) {
        if (blockBytes <= 0 || blockBytes > Integer.MAX_VALUE - HEADER_BYTES - 8) {
            throw new IllegalArgumentException("blockBytes must be > 0 and fit one array");
        }
        this.map = Objects.requireNonNull(member, "member").getMap(MAP_NAME);
        this.blockBytes = blockBytes;
    }

    @Override
    public Tier tier() {
        return Tier.G4;
    }

    @Override
    public long blockBytes() {
        return blockBytes;
    }

    @Override
    public List<BlockHash> put(BlockHash hash, MemorySegment page) {
        Objects.requireNonNull(hash, "hash");
        Objects.requireNonNull(page, "page");
        if (page.byteSize() != blockBytes) {
            throw new IllegalArgumentException("page size differs from the store's blockBytes");
        }
        byte[] value = new byte[HEADER_BYTES + (int) blockBytes];
        MemorySegment.copy(page, 0, MemorySegment.ofArray(value), HEADER_BYTES, blockBytes);
        ByteBuffer.wrap(value).putLong(hash.value()).putInt(crc(value));
        map.set(hash.value(), value);
        return List.of();
    }

    @Override
    public ReadResult read(BlockHash hash, MemorySegment target) {
        Objects.requireNonNull(hash, "hash");
        byte[] value = map.get(hash.value());
        if (value == null) {
            return ReadResult.MISSING;
        }
        ByteBuffer header = ByteBuffer.wrap(value);
        if (value.length != HEADER_BYTES + blockBytes || header.getLong() != hash.value()
                || header.getInt() != crc(value)) {
            map.remove(hash.value(), value);
            return ReadResult.DISCARDED;
        }
        MemorySegment.copy(MemorySegment.ofArray(value), HEADER_BYTES, target, 0, blockBytes);
        return ReadResult.HIT;
    }

    @Override
    public boolean contains(BlockHash hash) {
        return map.containsKey(Objects.requireNonNull(hash, "hash").value());
    }

    @Override
    public boolean remove(BlockHash hash) {
        return map.remove(Objects.requireNonNull(hash, "hash").value()) != null;
    }

    /** Blocks in the grid, cluster-wide (all workers'). */
    @Override
    public long blockCount() {
        return map.size();
    }

    /** Nothing to release: the blocks stay in the grid and the member is its owner's to shut down. */
    @Override
    public void close() {
    }

    private static int crc(byte[] value) {
        CRC32C crc = new CRC32C();
        crc.update(value, HEADER_BYTES, value.length - HEADER_BYTES);
        return (int) crc.getValue();
    }
}
