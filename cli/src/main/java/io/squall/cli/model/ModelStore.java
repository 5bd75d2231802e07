package io.squall.cli.model;

import java.io.Console;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.Objects;

/**
 * The model cache: {@link #resolve} turns a {@link ModelSpec} into a local file. A download is fetched once into
 * {@code <cache>/<host>/<path>} (for the hub {@code <cache>/<hub host>/OWNER/REPO/REVISION/FILE}) and used from
 * there ever after, without asking the network again, so a cached model works offline. While downloading, the
 * bytes go to {@code FILE.part} (kept across runs, so the next run resumes) and reach {@code FILE} only complete
 * and verified; a lock file keeps two processes from downloading one file at once.
 *
 * <p>The cache is {@code -Dsquall.models.dir}, else {@code $SQUALL_MODELS_DIR}, else
 * {@code ~/.cache/squall/models}. Thread-safe: concurrent resolves of one file wait for each other.
 */
public final class ModelStore {

    private final Path cache;
    private final URI hub;
    private final String token;
    private final PrintStream progress;
    private final boolean terminal;
    /** Made on the first download: an HTTP client loads the JDK's trust store, ~0.2 s of every start otherwise. */
    private HttpDownload download;

    /**
     * @param cache the cache directory (created on first download)
     * @param hub the hub {@code hf:} names resolve against; its host alone receives {@code token}
     * @param token a hub access token, or {@code null}
     * @param progress where progress and download notes go (stderr for the CLI)
     * @param terminal whether {@code progress} is a terminal (a redrawn bar) or a log (a line per tenth)
     */
    public ModelStore(Path cache, URI hub, String token, PrintStream progress, boolean terminal) {
        this.cache = Objects.requireNonNull(cache, "cache").toAbsolutePath();
        this.hub = Objects.requireNonNull(hub, "hub");
        this.token = token;
        this.progress = Objects.requireNonNull(progress, "progress");
        this.terminal = terminal;
    }

    private synchronized HttpDownload download() {
        if (download == null) {
            HttpClient http = HttpClient.newBuilder().followRedirects(HttpClient.Redirect.NEVER)
                    .connectTimeout(Duration.ofSeconds(15)).build();
            download = new HttpDownload(http, hub.getHost(), token, progress, terminal);
        }
        return download;
    }

    /** The store the CLI uses: the configured cache and hub, {@code HF_TOKEN}, progress on stderr. */
    public static ModelStore fromEnvironment() {
        Console console = System.console(); // not null on JDK 22+ even when not a terminal: ask
        return new ModelStore(defaultCache(), ModelSpec.hubEndpoint(), System.getenv("HF_TOKEN"), System.err,
                console != null && console.isTerminal());
    }

    /** {@code -Dsquall.models.dir}, else {@code $SQUALL_MODELS_DIR}, else {@code ~/.cache/squall/models}. */
    public static Path defaultCache() {
        String configured = System.getProperty("squall.models.dir", System.getenv("SQUALL_MODELS_DIR"));
        return configured != null && !configured.isBlank() ? Path.of(configured)
                : Path.of(System.getProperty("user.home"), ".cache", "squall", "models");
    }

    /** Parses {@code text} against this store's hub and resolves it. */
    public Path resolve(String text) {
        return resolve(ModelSpec.parse(text, hub));
    }

    /**
     * The local file {@code spec} names: a local file as it is (it must exist), a download from the cache,
     * downloading it first when it is not there.
     *
     * @throws IllegalArgumentException if a local file does not exist
     * @throws IllegalStateException with a one-line reason if a download is needed and fails (server unreachable,
     *                               not found, refused, corrupt or broken off)
     */
    public Path resolve(ModelSpec spec) {
        return switch (spec) {
            case ModelSpec.LocalFile local -> {
                if (!Files.isRegularFile(local.path())) {
                    throw new IllegalArgumentException("--model " + local.path() + ": no such file");
                }
                yield local.path();
            }
            case ModelSpec.Download remote -> cached(remote);
        };
    }

    /** Where {@code spec} is (or will be) cached. */
    public Path cachePath(ModelSpec.Download spec) {
        return cache.resolve(spec.cacheKey());
    }

    private Path cached(ModelSpec.Download spec) {
        Path target = cachePath(spec);
        if (Files.isRegularFile(target)) {
            return target; // complete and verified when it was moved here: no network needed
        }
        try {
            Files.createDirectories(target.getParent());
            Path lockFile = target.resolveSibling(target.getFileName() + ".lock");
            try (FileChannel channel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
                 FileLock ignored = channel.lock()) {
                if (Files.isRegularFile(target)) {
                    return target; // another process finished it while this one waited
                }
                Path part = target.resolveSibling(target.getFileName() + ".part");
                Path meta = target.resolveSibling(target.getFileName() + ".part.version");
                download().fetch(spec, part, meta);
                Files.move(part, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
                Files.deleteIfExists(meta);
            }
            return target;
        } catch (HttpDownload.Unreachable e) {
            throw new IllegalStateException("cannot download " + spec + ": " + e.getMessage() + ", and it is not in the "
                    + "model cache (" + target + ") yet; connect once to download it, or pass --model FILE.gguf");
        } catch (NoSuchFileException e) {
            throw new UncheckedIOException("cannot write to the model cache " + cache + ": " + e.getMessage(), e);
        } catch (IOException e) {
            throw new UncheckedIOException("downloading " + spec + " failed: " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while downloading " + spec, e);
        }
    }
}
