package io.icecompact.core.error;

/**
 * Thrown when an input data or delete file cannot be decoded (not Parquet, truncated, bad footer).
 */
public class CorruptInputFileException extends ApplicationException {
  public CorruptInputFileException(String message) {
    super(message);
  }

  public CorruptInputFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
