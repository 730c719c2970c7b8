package io.icecompact.core.io;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.apache.iceberg.io.FileIO;

/**
 * {@link CreateIfAbsent} for local files: {@code CREATE_NEW} is one atomic check-and-create on a
 * local disk.
 */
final class LocalCreateIfAbsent implements CreateIfAbsent {
  /**
   * {@code file:} locations and absolute paths: for LocalFileIO, which reads both from the local
   * disk.
   */
  static final LocalCreateIfAbsent FILES_AND_PATHS = new LocalCreateIfAbsent(true);

  /**
   * {@code file:} locations only: for Hadoop's FileIO (and ResolvingFileIO, which gives it file:
   * locations), where a path without a scheme is on Hadoop's default file system, not necessarily
   * the local disk.
   */
  static final LocalCreateIfAbsent FILES = new LocalCreateIfAbsent(false);

  // by name: core compiles without Hadoop
  private static final String HADOOP_FILE_IO = "org.apache.iceberg.hadoop.HadoopFileIO";
  private static final String RESOLVING_FILE_IO = "org.apache.iceberg.io.ResolvingFileIO";

  private final boolean absolutePaths;

  static CreateIfAbsent forFileIO(FileIO io) {
    if (io instanceof LocalFileIO) {
      return FILES_AND_PATHS;
    }
    String type = io == null ? "" : io.getClass().getName();
    return type.equals(HADOOP_FILE_IO) || type.equals(RESOLVING_FILE_IO)
        ? FILES
        : CreateIfAbsent.NONE;
  }

  private LocalCreateIfAbsent(boolean absolutePaths) {
    this.absolutePaths = absolutePaths;
  }

  @Override
  public boolean supports(String location) {
    return location.startsWith("file:") || (absolutePaths && location.startsWith("/"));
  }

  @Override
  public boolean createIfAbsent(String location, byte[] bytes) {
    Path path = LocalFileIO.toFile(location).toPath().toAbsolutePath();
    try {
      Files.createDirectories(path.getParent());
      Files.write(path, bytes, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
      return true;
    } catch (FileAlreadyExistsException e) {
      return false;
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create " + location, e);
    }
  }
}
