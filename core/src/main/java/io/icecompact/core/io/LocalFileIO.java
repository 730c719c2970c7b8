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
import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.FileInfo;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.PositionOutputStream;
import org.apache.iceberg.io.SeekableInputStream;
import org.apache.iceberg.io.SupportsPrefixOperations;

/**
 * FileIO for a warehouse on the local disk. iceberg-core only offers HadoopFileIO (which drags
 * Hadoop into the planner and committer) or InMemoryFileIO, so this small adapter over Iceberg's
 * own {@code Files.localInput/localOutput} serves the embedded runner and tests.
 */
public class LocalFileIO implements FileIO, SupportsPrefixOperations {

  /**
   * Iceberg's local input file answers 0 for the length of a missing file ({@code File.length()});
   * S3FileIO and HadoopFileIO throw {@link NotFoundException}, and so does this, so that a missing
   * file is never taken for an empty one.
   */
  @Override
  public InputFile newInputFile(String location) {
    File file = toFile(location);
    InputFile local = org.apache.iceberg.Files.localInput(file);
    return new InputFile() {
      @Override
      public long getLength() {
        if (!file.isFile()) {
          throw new NotFoundException("File does not exist: %s", location);
        }
        return local.getLength();
      }

      @Override
      public SeekableInputStream newStream() {
        return local.newStream();
      }

      @Override
      public String location() {
        return local.location();
      }

      @Override
      public boolean exists() {
        return local.exists();
      }

      @Override
      public String toString() {
        return local.toString();
      }
    };
  }

  /**
   * Iceberg's local output file checks for its folder and then calls {@code mkdirs()}, which fails
   * when another thread created the folder in between (two workers writing their first result, or
   * two groups of one partition). The folder is created here first, in a way that tolerates a
   * concurrent creation.
   */
  @Override
  public OutputFile newOutputFile(String location) {
    File file = toFile(location);
    OutputFile local = org.apache.iceberg.Files.localOutput(file);
    return new OutputFile() {
      @Override
      public PositionOutputStream create() {
        createParent(file);
        return local.create();
      }

      @Override
      public PositionOutputStream createOrOverwrite() {
        createParent(file);
        return local.createOrOverwrite();
      }

      @Override
      public String location() {
        return local.location();
      }

      @Override
      public InputFile toInputFile() {
        return local.toInputFile();
      }

      @Override
      public String toString() {
        return local.toString();
      }
    };
  }

  private static void createParent(File file) {
    File parent = file.getAbsoluteFile().getParentFile();
    try {
      Files.createDirectories(parent.toPath());
    } catch (IOException e) {
      throw new UncheckedIOException("Cannot create directory " + parent, e);
    }
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

  static File toFile(String location) {
    if (location.startsWith("file:")) {
      return Paths.get(java.net.URI.create(location.replace("file:///", "file:/"))).toFile();
    }
    return new File(location);
  }
}
