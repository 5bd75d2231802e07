package io.squall.cli.bench;

import javax.imageio.ImageIO;
import java.awt.BasicStroke;
import java.awt.Color;
import java.awt.Font;
import java.awt.Graphics2D;
import java.awt.RenderingHints;
import java.awt.image.BufferedImage;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;

/** Draws histograms of TTFT, ITL, TPOT and latency side by side into a PNG, with Java2D in headless mode. */
final class DistributionPlot {

    private static final int PANEL_WIDTH = 420;
    private static final int HEIGHT = 320;
    private static final int BINS = 40;
    private static final int MARGIN = 40;

    private DistributionPlot() {
    }

    static void write(Report.Run run, double speedup, String title, Path png) {
        System.setProperty("java.awt.headless", "true");
        Report.Samples samples = Report.Samples.of(run, speedup);
        BufferedImage image = new BufferedImage(PANEL_WIDTH * 4, HEIGHT, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, image.getWidth(), image.getHeight());
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.setColor(Color.BLACK);
            g.drawString(title, 10, 15);
            panel(g, 0, "TTFT (ms)", samples.ttftMs(), new Color(0x1f77b4));
            panel(g, PANEL_WIDTH, "ITL (ms)", samples.itlMs(), new Color(0xff7f0e));
            panel(g, 2 * PANEL_WIDTH, "TPOT, per request (ms)", samples.tpotMs(), new Color(0x9467bd));
            panel(g, 3 * PANEL_WIDTH, "latency (ms)", samples.latencyMs(), new Color(0x2ca02c));
        } finally {
            g.dispose();
        }
        try {
            ImageIO.write(image, "png", png.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + png, e);
        }
    }

    private static void panel(Graphics2D g, int x0, String label, double[] sorted, Color color) {
        int left = x0 + MARGIN;
        int right = x0 + PANEL_WIDTH - 10;
        int top = 30;
        int bottom = HEIGHT - MARGIN;
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1));
        g.drawLine(left, bottom, right, bottom);
        g.drawLine(left, top, left, bottom);
        g.drawString(label + "  n=" + sorted.length, left + 5, top - 5);
        if (sorted.length == 0) {
            return;
        }
        double min = sorted[0];
        double max = Report.percentile(sorted, 99.5);
        double width = Math.max((max - min) / BINS, 1e-9);
        int[] counts = new int[BINS];
        int highest = 1;
        for (double value : sorted) {
            int bin = (int) Math.min(BINS - 1, Math.max(0, (value - min) / width));
            highest = Math.max(highest, ++counts[bin]);
        }
        double barWidth = (right - left) / (double) BINS;
        g.setColor(color);
        for (int b = 0; b < BINS; b++) {
            int h = (int) Math.round(counts[b] / (double) highest * (bottom - top));
            g.fillRect((int) (left + b * barWidth), bottom - h, Math.max(1, (int) barWidth - 1), h);
        }
        g.setColor(Color.BLACK);
        g.drawString(String.format("%.2f", min), left, bottom + 15);
        String end = String.format("%.2f", max);
        g.drawString(end, right - g.getFontMetrics().stringWidth(end), bottom + 15);
        g.drawString(String.format("p50 %.2f  p99 %.2f", Report.percentile(sorted, 50), Report.percentile(sorted, 99)),
                left + 5, bottom + 30);
    }
}
