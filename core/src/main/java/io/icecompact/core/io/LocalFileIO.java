package io.icecompact.core.io;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.time.Instant;
import java.util.stream.Stream;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * FileIO for a warehouse on the local disk. iceberg-core only offers HadoopFileIO (which drags Hadoop
 * into the planner and committer) or InMemoryFileIO, so this small adapter over Iceberg's own
 * {@code Files.localInput/localOutput} serves the embedded runner and tests.
 */
public class LocalFileIO implements FileIO, SupportsPrefixOperations {

  @Override
  public InputFile newInputFile(String location) {
    return org.apache.iceberg.Files.localInput(toFile(location));
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return org.apache.iceberg.Files.localOutput(toFile(location));
  }

  @Override
  public void deleteFile(String location) {
    try {
      Files.deleteIfExists(toFile(location).toPath());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot delete " + location, e);
    }
  }

  @Override
  public Iterable<FileInfo> listPrefix(String prefix) {
    Path root = toFile(prefix).toPath();
    Path dir = Files.isDirectory(root) ? root : root.getParent();
    if (dir == null || !Files.isDirectory(dir)) {
      return java.util.List.of();
    }
    try (Stream<Path> files = Files.walk(dir)) {
      String wanted = root.toString();
      return files
          .filter(Files::isRegularFile)
          .filter(path -> path.toString().startsWith(wanted))
          .map(LocalFileIO::info)
          .toList();
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot list " + prefix, e);
    }
  }

  @Override
  public void deletePrefix(String prefix) {
    for (FileInfo info : listPrefix(prefix)) {
      deleteFile(info.location());
    }
  }

  private static FileInfo info(Path path) {
    try {
      return new FileInfo(
          path.toString(), Files.size(path), Files.getLastModifiedTime(path).toMillis());
    } catch (NoSuchFileException e) {
      return new FileInfo(path.toString(), 0, Instant.now().toEpochMilli());
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static File toFile(String location) {
    if (location.startsWith("file:")) {
      return Paths.get(java.net.URI.create(location.replace("file:///", "file:/"))).toFile();
    }
    return new File(location);
  }
}
