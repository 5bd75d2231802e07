package io.squall.functions.engine.gguf;

import java.nio.file.Path;

/**
 * A GGUF file that cannot be read: truncated, corrupt, or using a feature Squall does not support.
 * The message names the file, the byte offset where reading failed and what was wrong.
 */
public final class GgufException extends RuntimeException {

    private final Path file;
    private final long offset;

    public GgufException(Path file, long offset, String problem) {
        super(file + ": at byte offset " + offset + ": " + problem);
        this.file = file;
        this.offset = offset;
    }

    public GgufException(Path file, String problem, Throwable cause) {
        super(file + ": " + problem, cause);
        this.file = file;
        this.offset = -1;
    }

    /** The file that failed to read. */
    public Path file() {
        return file;
    }

    /** The byte offset where reading failed, or -1 when the failure is not tied to one. */
    public long offset() {
        return offset;
    }
}
