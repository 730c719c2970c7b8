package io.icecompact.core.text;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/**
 * Long lists and texts cut to a bounded size for messages that travel through Step Functions (an
 * error's Cause, a job summary), where anything growing with the job would eventually exceed the
 * 256 KiB state payload limit. The full lists stay in the job's documents.
 */
public final class Abbreviated {
  /** How many names of a list a message shows. */
  public static final int NAMES_SHOWN = 5;

  private Abbreviated() {}

  /**
   * {@code [a, b, c]} when {@code items} has at most {@code shown} elements, otherwise the first
   * {@code shown} and how many more: {@code [a, b, c, ... and 997 more]}.
   */
  public static String list(Collection<?> items, int shown) {
    if (items.size() <= shown) {
      return items.toString();
    }
    List<String> first = new ArrayList<>(shown + 1);
    for (Object item : items) {
      if (first.size() == shown) {
        break;
      }
      first.add(String.valueOf(item));
    }
    first.add("... and " + (items.size() - shown) + " more");
    return first.toString();
  }

  /** {@link #list(Collection, int)} with {@link #NAMES_SHOWN} names. */
  public static String list(Collection<?> items) {
    return list(items, NAMES_SHOWN);
  }

  /**
   * {@code text} itself when it has at most {@code maxChars} characters, otherwise its first {@code
   * maxChars} followed by how many were cut.
   */
  public static String text(String text, int maxChars) {
    if (text == null || text.length() <= maxChars) {
      return text;
    }
    return text.substring(0, maxChars) + "... (" + (text.length() - maxChars) + " more characters)";
  }
}
