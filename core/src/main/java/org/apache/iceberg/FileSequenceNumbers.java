package org.apache.iceberg;

/**
 * Restores the data and file sequence numbers of a data or delete file read back with Iceberg's
 * {@code ContentFileParser}, which does not write them (apache/iceberg#17833; the fix, #17299, is
 * not in a release yet). Iceberg sets them from the manifest entry through {@code BaseFile}'s
 * setters, which only its own package can reach: hence this class's package. Remove it once the
 * parser keeps them.
 *
 * <p>A worker needs them to rewrite a v3 table from its group document alone: rows whose {@code
 * _last_updated_sequence_number} is null inherit their file's data sequence number.
 */
public final class FileSequenceNumbers {
  private FileSequenceNumbers() {}

  /** Sets both numbers on {@code file} (as parsed: a {@code BaseFile}); nulls leave them unset. */
  public static void set(ContentFile<?> file, Long dataSequenceNumber, Long fileSequenceNumber) {
    if (!(file instanceof BaseFile<?> base)) {
      throw new IllegalArgumentException(
          "Not a file Iceberg's parser built: " + file.getClass().getName());
    }
    base.setDataSequenceNumber(dataSequenceNumber);
    base.setFileSequenceNumber(fileSequenceNumber);
  }
}
