package io.icecompact.engine.prefetch;

import org.apache.iceberg.exceptions.NotFoundException;
import org.apache.iceberg.io.FileIO;
import org.apache.iceberg.io.InputFile;
import org.apache.iceberg.io.OutputFile;
import org.apache.iceberg.io.SeekableInputStream;

/**
 * A FileIO on which one file is gone, as S3FileIO reports it (NotFoundException when read), while
 * the table shared by the other tests keeps it.
 */
final class MissingFileIO implements FileIO {
  private final FileIO delegate;
  private final String missing;

  MissingFileIO(FileIO delegate, String missing) {
    this.delegate = delegate;
    this.missing = missing;
  }

  @Override
  public InputFile newInputFile(String location) {
    return location.equals(missing) ? gone(location) : delegate.newInputFile(location);
  }

  @Override
  public InputFile newInputFile(String location, long length) {
    return location.equals(missing) ? gone(location) : delegate.newInputFile(location, length);
  }

  private static InputFile gone(String location) {
    return new InputFile() {
      @Override
      public long getLength() {
        throw new NotFoundException("Location does not exist: %s", location);
      }

      @Override
      public SeekableInputStream newStream() {
        throw new NotFoundException("Location does not exist: %s", location);
      }

      @Override
      public String location() {
        return location;
      }

      @Override
      public boolean exists() {
        return false;
      }
    };
  }

  @Override
  public OutputFile newOutputFile(String location) {
    return delegate.newOutputFile(location);
  }

  @Override
  public void deleteFile(String location) {
    delegate.deleteFile(location);
  }
}
