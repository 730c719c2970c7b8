package io.icecompact.worker.orc;

import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.permission.FsPermission;
import org.apache.hadoop.util.Progressable;
import org.apache.iceberg.hadoop.HadoopStreams;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;

/**
 * One Iceberg file as the Hadoop {@link FileSystem} ORC's reader and writer open it through: ORC
 * takes a file system, not a stream, and the worker's files are on S3FileIO (no Hadoop S3 file
 * system in the jar). Iceberg's ORC module has the same adapter, package-private. Only opening (an
 * input) or creating (an output) the one file is supported.
 */
final class FileIOFileSystem extends FileSystem {
  private final InputFile input;
  private final OutputFile output;
  private FSDataOutputStream created;

  private FileIOFileSystem(InputFile input, OutputFile output) {
    this.input = input;
    this.output = output;
    setConf(new Configuration(false));
  }

  static FileIOFileSystem reading(InputFile input) {
    return new FileIOFileSystem(input, null);
  }

  static FileIOFileSystem writing(OutputFile output) {
    return new FileIOFileSystem(null, output);
  }

  @Override
  public URI getUri() {
    return URI.create("fileio:///");
  }

  @Override
  public FSDataInputStream open(Path path, int bufferSize) throws IOException {
    if (input == null) {
      throw new FileNotFoundException("Not readable here: " + path);
    }
    return new FSDataInputStream(HadoopStreams.wrap(input.newStream()));
  }

  @Override
  public FSDataOutputStream create(
      Path path,
      FsPermission permission,
      boolean overwrite,
      int bufferSize,
      short replication,
      long blockSize,
      Progressable progress) {
    if (output == null) {
      throw new UnsupportedOperationException("Not writable here: " + path);
    }
    created = new FSDataOutputStream(output.create(), null);
    return created;
  }

  /** The bytes written to the created file so far (also once it is closed). */
  long writtenLength() throws IOException {
    return created == null ? 0 : created.getPos();
  }

  @Override
  public FileStatus getFileStatus(Path path) throws IOException {
    if (input == null) {
      throw new FileNotFoundException(path.toString());
    }
    return new FileStatus(input.getLength(), false, 1, 0, 0, path);
  }

  @Override
  public FSDataOutputStream append(Path path, int bufferSize, Progressable progress) {
    throw new UnsupportedOperationException("append");
  }

  @Override
  public boolean rename(Path from, Path to) {
    throw new UnsupportedOperationException("rename");
  }

  @Override
  public boolean delete(Path path, boolean recursive) {
    throw new UnsupportedOperationException("delete");
  }

  @Override
  public FileStatus[] listStatus(Path path) {
    throw new UnsupportedOperationException("listStatus");
  }

  @Override
  public void setWorkingDirectory(Path directory) {
    throw new UnsupportedOperationException("setWorkingDirectory");
  }

  @Override
  public Path getWorkingDirectory() {
    return new Path("/");
  }

  @Override
  public boolean mkdirs(Path path, FsPermission permission) {
    throw new UnsupportedOperationException("mkdirs");
  }
}
