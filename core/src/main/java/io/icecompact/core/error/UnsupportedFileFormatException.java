package io.icecompact.core.error;

/**
 * Thrown when an input file is in a format this build has no reader for (Iceberg's format-model
 * registry has none registered): the file is not damaged, and a retry fails the same way.
 */
public class UnsupportedFileFormatException extends ApplicationException {
  public UnsupportedFileFormatException(String message, Throwable cause) {
    super(message, cause);
  }

  /**
   * The registry's refusal anywhere in {@code failure}'s causes (an {@link
   * IllegalArgumentException} saying "Format model is not registered"), as this type; null when
   * {@code failure} is something else.
   */
  public static UnsupportedFileFormatException in(Throwable failure, String location) {
    for (Throwable t = failure; t != null; t = t.getCause()) {
      if (t instanceof IllegalArgumentException
          && t.getMessage() != null
          && t.getMessage().startsWith("Format model is not registered")) {
        return new UnsupportedFileFormatException(
            "Cannot read "
                + location
                + ": its format has no reader in this build ("
                + t.getMessage()
                + "); the file is not damaged",
            failure);
      }
    }
    return null;
  }
}
