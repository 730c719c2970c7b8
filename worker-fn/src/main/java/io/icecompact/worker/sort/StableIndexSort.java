package io.icecompact.worker.sort;

/**
 * Sorts row numbers by a comparison of the rows they name, stably (rows that compare equal keep
 * their order), without boxing them: a bottom-up merge sort over {@code int[]}, runs of 32 first
 * sorted by insertion. The JDK sorts {@code int[]} only by value and {@code Integer[]} by
 * comparator.
 */
final class StableIndexSort {
  private static final int RUN = 32;

  /** Compares two rows by their numbers. */
  interface Comparison {
    int compare(int a, int b);
  }

  private StableIndexSort() {}

  /** The numbers {@code 0..rows-1} in {@code order}; equal rows in ascending number. */
  static int[] sorted(int rows, Comparison order) {
    int[] sorted = new int[rows];
    for (int i = 0; i < rows; i++) {
      sorted[i] = i;
    }
    for (int from = 0; from < rows; from += RUN) {
      insertionSort(sorted, from, Math.min(rows, from + RUN), order);
    }
    if (rows <= RUN) {
      return sorted;
    }
    int[] source = sorted;
    int[] target = new int[rows];
    for (int width = RUN; width < rows; width *= 2) {
      for (int from = 0; from < rows; from += 2 * width) {
        int middle = Math.min(rows, from + width);
        int to = Math.min(rows, from + 2 * width);
        merge(source, target, from, middle, to, order);
      }
      int[] swap = source;
      source = target;
      target = swap;
    }
    return source;
  }

  private static void insertionSort(int[] rows, int from, int to, Comparison order) {
    for (int i = from + 1; i < to; i++) {
      int row = rows[i];
      int j = i - 1;
      while (j >= from && order.compare(rows[j], row) > 0) {
        rows[j + 1] = rows[j];
        j--;
      }
      rows[j + 1] = row;
    }
  }

  /**
   * Merges the sorted {@code source[from, middle)} and {@code source[middle, to)} into {@code
   * target}.
   */
  private static void merge(
      int[] source, int[] target, int from, int middle, int to, Comparison order) {
    if (middle >= to || order.compare(source[middle - 1], source[middle]) <= 0) {
      System.arraycopy(source, from, target, from, to - from); // already in order (or one run)
      return;
    }
    int left = from;
    int right = middle;
    for (int i = from; i < to; i++) {
      // the left run wins ties: stable
      if (right >= to || (left < middle && order.compare(source[left], source[right]) <= 0)) {
        target[i] = source[left++];
      } else {
        target[i] = source[right++];
      }
    }
  }
}
