package io.squall.knative.deploy;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified line diff (as {@code diff -u} prints it, 3 lines of context) of two small texts, by a longest
 * common subsequence: O(n·m) time and memory in lines, meant for manifests of a few hundred lines.
 */
final class TextDiff {

    private static final int CONTEXT = 3;

    private TextDiff() {
    }

    /** The diff from {@code before} to {@code after} with the given file labels; empty when they are equal. */
    static String unified(String beforeLabel, String afterLabel, String before, String after) {
        if (before.equals(after)) {
            return "";
        }
        List<String> a = lines(before);
        List<String> b = lines(after);
        int[][] common = new int[a.size() + 1][b.size() + 1];
        for (int i = a.size() - 1; i >= 0; i--) {
            for (int j = b.size() - 1; j >= 0; j--) {
                common[i][j] = a.get(i).equals(b.get(j)) ? common[i + 1][j + 1] + 1 : Math.max(common[i + 1][j], common[i][j + 1]);
            }
        }
        // the edit script: ' ' kept, '-' only in before, '+' only in after, with each line's numbers in both texts
        List<Edit> edits = new ArrayList<>();
        int i = 0;
        int j = 0;
        while (i < a.size() || j < b.size()) {
            if (i < a.size() && j < b.size() && a.get(i).equals(b.get(j))) {
                edits.add(new Edit(' ', a.get(i), i++, j++));
            } else if (i < a.size() && (j == b.size() || common[i + 1][j] >= common[i][j + 1])) {
                edits.add(new Edit('-', a.get(i), i++, j));
            } else {
                edits.add(new Edit('+', b.get(j), i, j++));
            }
        }
        StringBuilder out = new StringBuilder("--- ").append(beforeLabel).append('\n')
                .append("+++ ").append(afterLabel).append('\n');
        List<Integer> changes = new ArrayList<>();
        for (int e = 0; e < edits.size(); e++) {
            if (edits.get(e).kind != ' ') {
                changes.add(e);
            }
        }
        // changes at most 2 × CONTEXT kept lines apart share a hunk
        for (int g = 0; g < changes.size(); g++) {
            int first = changes.get(g);
            int last = first;
            while (g + 1 < changes.size() && changes.get(g + 1) - last - 1 <= 2 * CONTEXT) {
                last = changes.get(++g);
            }
            hunk(out, edits.subList(Math.max(0, first - CONTEXT), Math.min(edits.size(), last + CONTEXT + 1)),
                    a.isEmpty(), b.isEmpty());
        }
        return out.toString();
    }

    private static void hunk(StringBuilder out, List<Edit> hunk, boolean beforeEmpty, boolean afterEmpty) {
        int beforeStart = hunk.getFirst().before;
        int afterStart = hunk.getFirst().after;
        int beforeCount = (int) hunk.stream().filter(e -> e.kind != '+').count();
        int afterCount = (int) hunk.stream().filter(e -> e.kind != '-').count();
        out.append("@@ -").append(beforeEmpty ? 0 : beforeStart + 1).append(',').append(beforeCount)
                .append(" +").append(afterEmpty ? 0 : afterStart + 1).append(',').append(afterCount).append(" @@\n");
        for (Edit edit : hunk) {
            out.append(edit.kind).append(edit.line).append('\n');
        }
    }

    private static List<String> lines(String text) {
        if (text.isEmpty()) {
            return List.of();
        }
        String[] lines = text.split("\n", -1);
        return List.of(lines).subList(0, text.endsWith("\n") ? lines.length - 1 : lines.length);
    }

    private record Edit(char kind, String line, int before, int after) {
    }
}
