/**
 * GGUF, the model file format of llama.cpp: a reader over a memory-mapped file ({@link
 * io.squall.functions.engine.gguf.GgufFile}) that never copies tensor data onto the heap and rejects
 * truncated or hostile files with one clear {@link io.squall.functions.engine.gguf.GgufException},
 * and a writer ({@link io.squall.functions.engine.gguf.GgufWriter}) for the same format.
 *
 * <p>Layout (all little-endian): magic {@code "GGUF"}, version (2 or 3), tensor count, metadata count,
 * the metadata key/value pairs, the tensor infos (name, dims, type, offset), padding to
 * {@code general.alignment} (default 32), then the tensor data, each tensor at an aligned offset.
 */
package io.squall.functions.engine.gguf;
