package io.squall.cli.model;

import java.io.PrintStream;
import java.util.Locale;

/**
 * A download's progress on stderr: on a terminal one line redrawn at most ten times a second
 * ({@code stories260K.gguf  42%  [=======>          ]  480 KiB / 1.1 MiB  2.3 MiB/s}); elsewhere (logs, CI) a
 * line at every tenth. Not thread-safe: one downloading thread reports.
 */
final class DownloadProgress {

    private static final long REDRAW_NANOS = 100_000_000L;
    private static final int BAR = 24;

    private final PrintStream out;
    private final String name;
    private final long total;
    private final boolean terminal;
    private final long startNanos = System.nanoTime();
    private final long startBytes;
    private long done;
    private long lastDrawNanos;
    private int lastTenth = -1;

    /**
     * @param total bytes in all, or -1 when unknown
     * @param already bytes already on disk (a resumed download)
     */
    DownloadProgress(PrintStream out, String name, long total, long already, boolean terminal) {
        this.out = out;
        this.name = name;
        this.total = total;
        this.terminal = terminal;
        this.startBytes = already;
        this.done = already;
    }

    void advance(long bytes) {
        done += bytes;
        long now = System.nanoTime();
        if (terminal) {
            if (now - lastDrawNanos >= REDRAW_NANOS) {
                lastDrawNanos = now;
                out.print("\r" + line(now));
                out.flush();
            }
        } else if (total > 0) {
            int tenth = (int) (done * 10 / total);
            if (tenth > lastTenth) {
                lastTenth = tenth;
                out.println(line(now));
            }
        }
    }

    /** Ends the line (terminal) or prints the final one. */
    void finish() {
        String last = line(System.nanoTime());
        if (terminal) {
            out.println("\r" + last);
        } else if (total <= 0) {
            out.println(last);
        }
        out.flush();
    }

    private String line(long now) {
        double seconds = Math.max((now - startNanos) / 1e9, 1e-3);
        String rate = bytes((long) ((done - startBytes) / seconds)) + "/s";
        if (total <= 0) {
            return String.format(Locale.ROOT, "%s  %s  %s", name, bytes(done), rate);
        }
        int percent = (int) Math.min(100, done * 100 / total);
        int filled = (int) Math.min(BAR, done * BAR / total);
        String bar = "=".repeat(filled) + (filled < BAR ? ">" + " ".repeat(BAR - filled - 1) : "");
        return String.format(Locale.ROOT, "%s %3d%% [%s] %s / %s  %s", name, percent, bar, bytes(done), bytes(total), rate);
    }

    static String bytes(long n) {
        if (n < 1024) {
            return n + " B";
        }
        String[] units = {"KiB", "MiB", "GiB", "TiB"};
        double value = n;
        int unit = -1;
        while (value >= 1024 && unit < units.length - 1) {
            value /= 1024;
            unit++;
        }
        return String.format(Locale.ROOT, "%.1f %s", value, units[unit]);
    }
}
