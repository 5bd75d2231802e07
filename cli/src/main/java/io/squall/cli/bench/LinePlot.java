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
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Line charts in stacked panels, written as a PNG with Java2D (headless): for figures over time or against a
 * swept parameter. Each panel has its own y axis, series and optional dashed reference lines (targets).
 */
public final class LinePlot {

    private static final int WIDTH = 900;
    private static final int PANEL_HEIGHT = 240;
    private static final int MARGIN = 55;
    private static final Color[] COLORS = {new Color(0x1f77b4), new Color(0xff7f0e), new Color(0x2ca02c),
            new Color(0xd62728), new Color(0x9467bd), new Color(0x8c564b)};

    /** A named line through points. */
    public record Series(String name, double[] xs, double[] ys) {
        public Series {
            if (xs.length != ys.length) {
                throw new IllegalArgumentException("a series needs as many x as y values");
            }
        }
    }

    /** A horizontal dashed line, e.g. a latency target. */
    public record Reference(String name, double y) {
    }

    /** One panel: a y label, its series and references. */
    public record Panel(String yLabel, List<Series> series, List<Reference> references) {
    }

    private LinePlot() {
    }

    /** Writes {@code panels} under {@code title}, sharing the x axis labelled {@code xLabel}. */
    public static void write(String title, String xLabel, List<Panel> panels, Path png) {
        System.setProperty("java.awt.headless", "true");
        int height = 30 + panels.size() * PANEL_HEIGHT + 20;
        BufferedImage image = new BufferedImage(WIDTH, height, BufferedImage.TYPE_INT_RGB);
        Graphics2D g = image.createGraphics();
        try {
            g.setRenderingHint(RenderingHints.KEY_ANTIALIASING, RenderingHints.VALUE_ANTIALIAS_ON);
            g.setColor(Color.WHITE);
            g.fillRect(0, 0, WIDTH, height);
            g.setFont(new Font(Font.SANS_SERIF, Font.PLAIN, 12));
            g.setColor(Color.BLACK);
            g.drawString(title, 10, 18);
            double xMin = Double.MAX_VALUE;
            double xMax = -Double.MAX_VALUE;
            for (Panel panel : panels) {
                for (Series s : panel.series()) {
                    for (double x : s.xs()) {
                        xMin = Math.min(xMin, x);
                        xMax = Math.max(xMax, x);
                    }
                }
            }
            if (xMin > xMax) {
                xMin = 0;
                xMax = 1;
            }
            for (int p = 0; p < panels.size(); p++) {
                panel(g, panels.get(p), 30 + p * PANEL_HEIGHT, xMin, xMax, p == panels.size() - 1 ? xLabel : null);
            }
        } finally {
            g.dispose();
        }
        try {
            ImageIO.write(image, "png", png.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write " + png, e);
        }
    }

    private static void panel(Graphics2D g, Panel panel, int top, double xMin, double xMax, String xLabel) {
        int left = MARGIN;
        int right = WIDTH - 20;
        int bottom = top + PANEL_HEIGHT - 40;
        double yMax = 0;
        for (Series s : panel.series()) {
            for (double y : s.ys()) {
                if (Double.isFinite(y)) {
                    yMax = Math.max(yMax, y);
                }
            }
        }
        for (Reference r : panel.references()) {
            yMax = Math.max(yMax, r.y());
        }
        yMax = yMax <= 0 ? 1 : yMax * 1.1;
        g.setColor(Color.BLACK);
        g.setStroke(new BasicStroke(1));
        g.drawLine(left, bottom, right, bottom);
        g.drawLine(left, top + 10, left, bottom);
        g.drawString(panel.yLabel(), left + 5, top + 8);
        g.drawString(format(yMax), 5, top + 18);
        g.drawString("0", 5, bottom);
        g.drawString(format(xMin), left, bottom + 15);
        String end = format(xMax);
        g.drawString(end, right - g.getFontMetrics().stringWidth(end), bottom + 15);
        if (xLabel != null) {
            g.drawString(xLabel, (left + right) / 2 - g.getFontMetrics().stringWidth(xLabel) / 2, bottom + 15);
        }
        double xSpan = Math.max(1e-12, xMax - xMin);
        int legend = left + 120;
        for (int i = 0; i < panel.references().size(); i++) {
            Reference r = panel.references().get(i);
            int y = (int) Math.round(bottom - r.y() / yMax * (bottom - top - 10));
            g.setColor(Color.GRAY);
            g.setStroke(new BasicStroke(1, BasicStroke.CAP_BUTT, BasicStroke.JOIN_MITER, 10, new float[] {6, 4}, 0));
            g.drawLine(left, y, right, y);
            g.drawString(r.name(), right - g.getFontMetrics().stringWidth(r.name()) - 2, y - 3);
        }
        for (int i = 0; i < panel.series().size(); i++) {
            Series s = panel.series().get(i);
            Color color = COLORS[i % COLORS.length];
            g.setColor(color);
            g.setStroke(new BasicStroke(2));
            List<int[]> points = new ArrayList<>();
            for (int k = 0; k < s.xs().length; k++) {
                if (!Double.isFinite(s.ys()[k])) {
                    continue;
                }
                points.add(new int[] {(int) Math.round(left + (s.xs()[k] - xMin) / xSpan * (right - left)),
                        (int) Math.round(bottom - Math.min(s.ys()[k], yMax) / yMax * (bottom - top - 10))});
            }
            for (int k = 1; k < points.size(); k++) {
                g.drawLine(points.get(k - 1)[0], points.get(k - 1)[1], points.get(k)[0], points.get(k)[1]);
            }
            if (points.size() == 1) {
                g.fillOval(points.getFirst()[0] - 2, points.getFirst()[1] - 2, 5, 5);
            }
            g.fillRect(legend, top + 1, 10, 8);
            g.setColor(Color.BLACK);
            g.drawString(s.name(), legend + 14, top + 9);
            legend += 24 + g.getFontMetrics().stringWidth(s.name());
        }
    }

    private static String format(double value) {
        return Math.abs(value) >= 100 ? String.format(Locale.ROOT, "%.0f", value)
                : String.format(Locale.ROOT, "%.2f", value);
    }
}
