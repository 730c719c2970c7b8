package io.icecompact.cli;

import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Prints rows as aligned columns: the last column unpadded (a reason, whole), the given ones
 * right-aligned.
 */
final class AlignedTable {
  private AlignedTable() {}

  static void print(PrintWriter out, List<String[]> rows, Set<Integer> rightAligned) {
    int columns = rows.get(0).length;
    int[] widths = new int[columns - 1];
    for (String[] row : rows) {
      for (int i = 0; i < widths.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < widths.length; i++) {
        String format = (rightAligned.contains(i) ? "%" : "%-") + widths[i] + "s  ";
        line.append(String.format(Locale.ROOT, format, row[i]));
      }
      line.append(row[columns - 1]);
      out.println(line.toString().stripTrailing());
    }
  }
}
