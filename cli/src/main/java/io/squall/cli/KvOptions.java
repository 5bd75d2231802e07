package io.squall.cli;

import io.squall.functions.worker.kv.KvConfig;
import picocli.CommandLine.Option;

import java.nio.file.Path;

/** The {@code --kv-*} options sizing a worker's KV tiers G1, G2 and G3. */
final class KvOptions {

    @Option(names = "--kv-blocks", defaultValue = "4096", description = "G1 KV blocks of 16 tokens per worker (default: ${DEFAULT-VALUE})")
    int blocks;

    @Option(names = "--kv-host-bytes", defaultValue = "0", description = "G2 off-heap host memory for evicted blocks, in bytes (default: none)")
    long hostBytes;

    @Option(names = "--kv-disk-dir", description = "G3 directory for evicted blocks (default: none)")
    Path diskDir;

    @Option(names = "--kv-disk-bytes", defaultValue = "0", description = "G3 capacity in bytes")
    long diskBytes;

    /** The tiers of a worker; {@code subdirectory} separates the disk tiers of several workers in one process. */
    KvConfig config(String subdirectory) {
        Path dir = diskDir == null || subdirectory == null ? diskDir : diskDir.resolve(subdirectory);
        return new KvConfig(blocks, 16, hostBytes, dir, diskBytes);
    }

    KvConfig config() {
        return config(null);
    }
}
