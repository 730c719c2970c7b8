package io.icecompact.core.job;

/**
 * A group whose worker gave up: the error type and its message. Stored in the work location by
 * whoever ran the worker (the embedded runner, or the Map state's Catch through {@code
 * RecordGroupFailure}), where the committer reads it next to the results: the one channel for
 * failures in both runners.
 */
public record GroupFailure(int groupIndex, String errorType, String message) {

  /**
   * The failure of group {@code groupIndex} as the embedded runner caught it, named as the Catch
   * names it.
   */
  public static GroupFailure of(int groupIndex, Throwable failure) {
    return new GroupFailure(
        groupIndex, errorType(failure.getClass().getName()), String.valueOf(failure.getMessage()));
  }

  /**
   * The one naming rule: a Java class without its package, e.g. {@code CorruptInputFileException};
   * an error AWS names ({@code Sandbox.Timedout}, {@code States.Timeout}, {@code
   * Lambda.ServiceException}) is kept whole, its prefix being what says where it came from.
   */
  public static String errorType(String error) {
    if (error == null) {
      return "Unknown";
    }
    int dot = error.lastIndexOf('.');
    boolean javaClass = dot > 0 && Character.isLowerCase(error.charAt(0));
    return javaClass ? error.substring(dot + 1) : error;
  }
}
