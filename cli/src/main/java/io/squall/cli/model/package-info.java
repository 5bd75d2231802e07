/**
 * Models by name: {@link io.squall.cli.model.ModelSpec} reads what {@code --model} names (a file,
 * {@code hf:OWNER/REPO/FILE.gguf} or an {@code https://} URL) and {@link io.squall.cli.model.ModelStore} turns it
 * into a local file, downloading once into the model cache (resumable, checked against the hub's published
 * SHA-256, with a progress bar on stderr) and reusing the cached file offline afterwards.
 */
package io.squall.cli.model;
