package io.icecompact.bench;

import io.icecompact.core.io.LocalFileIO;
import io.icecompact.worker.convert.CountedInputFile;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.iceberg.io.InputFile;

/**
 * The local FileIO counting, for the whole process, the bytes read from its streams and the streams
 * opened, by what was read: the table's data files, its delete files (both named up front by {@link
 * #classify}) or anything else (metadata, manifests, the job's own files). Set as the catalog's
 * {@code io-impl} in a bench child process, it measures a rewrite and a conversion the same way: on
 * the streams every worker reads its inputs through ({@code table.io()}).
 */
public class CountingFileIO extends LocalFileIO {
  /** What a file is to the table read. */
  enum Kind {
    DATA,
    DELETE,
    OTHER
  }

  private static final AtomicLong[] BYTES = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
  private static final AtomicLong[] OPENS = {new AtomicLong(), new AtomicLong(), new AtomicLong()};
  private static volatile Set<String> dataFiles = Set.of();
  private static volatile Set<String> deleteFiles = Set.of();

  /** The table's live data and delete files, by location, as the run starts. */
  static void classify(Set<String> data, Set<String> deletes) {
    dataFiles = Set.copyOf(data);
    deleteFiles = Set.copyOf(deletes);
  }

  /** Forgets what was counted: a warm-up's reads are not the measured job's. */
  static void reset() {
    for (int kind = 0; kind < BYTES.length; kind++) {
      BYTES[kind].set(0);
      OPENS[kind].set(0);
    }
  }

  static long bytesRead(Kind kind) {
    return BYTES[kind.ordinal()].get();
  }

  static long streamsOpened(Kind kind) {
    return OPENS[kind.ordinal()].get();
  }

  private static Kind kindOf(String location) {
    if (dataFiles.contains(location)) {
      return Kind.DATA;
    }
    return deleteFiles.contains(location) ? Kind.DELETE : Kind.OTHER;
  }

  @Override
  public InputFile newInputFile(String location) {
    return counted(super.newInputFile(location));
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    // LocalFileIO has no sized variant: FileIO's default would wrap this file twice
    return counted(super.newInputFile(location));
  }

  private static InputFile counted(InputFile file) {
    int kind = kindOf(file.location()).ordinal();
    return new CountedInputFile(file, BYTES[kind], OPENS[kind]);
  }
}
