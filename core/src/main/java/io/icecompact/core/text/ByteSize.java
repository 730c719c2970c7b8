package io.icecompact.core.text;

import java.util.Locale;

/** A byte count as a person reads it: B, KB, MB, GB (powers of 1024). */
public final class ByteSize {
  private ByteSize() {}

  public static String readable(long bytes) {
    if (bytes < 1024) {
      return bytes + " B";
    }
    String[] units = {"KB", "MB", "GB", "TB"};
    double value = bytes / 1024.0;
    int unit = 0;
    while (value >= 1024 && unit < units.length - 1) {
      value /= 1024;
      unit++;
    }
    return String.format(Locale.ROOT, value >= 100 ? "%.0f %s" : "%.1f %s", value, units[unit]);
  }
}
