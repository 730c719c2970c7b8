package io.icecompact.core.io;

import org.apache.iceberg.io.FileIO;

/**
 * Creates a file only when its location holds none, in one step that a concurrent create of the
 * same location cannot interleave with: of racing creates of one location exactly one answers
 * {@code true}. Iceberg's FileIO has no such operation ({@code OutputFile.create()} checks and then
 * writes, on S3 as on a disk), and a check followed by a write lets two callers both believe they
 * created the file.
 */
public interface CreateIfAbsent {
  /** An implementation that supports no location: callers keep whatever they did without one. */
  CreateIfAbsent NONE =
      new CreateIfAbsent() {
        @Override
        public boolean supports(String location) {
          return false;
        }

        @Override
        public boolean createIfAbsent(String location, byte[] bytes) {
          throw new UnsupportedOperationException("No atomic create for " + location);
        }
      };

  /** Whether {@link #createIfAbsent} can create {@code location} atomically. */
  boolean supports(String location);

  /**
   * Creates {@code location} holding {@code bytes} when nothing is there: {@code true} when this
   * call created it, {@code false} when it already existed or another create of it was under way.
   * Callers make {@code bytes} unique to the call, so that an implementation whose request was
   * retried can recognise the object its own first try wrote. Failures of the storage itself are
   * thrown, untyped (the caller classifies them).
   */
  boolean createIfAbsent(String location, byte[] bytes);

  /**
   * The atomic creates core knows for {@code io}'s locations: local files, created with {@code
   * CREATE_NEW}, which the file system checks and creates in one step ({@code file:} locations and,
   * for {@link LocalFileIO}, absolute paths; Iceberg's Hadoop and resolving FileIOs read {@code
   * file:} locations from the same disk). None for any other FileIO: S3's conditional create needs
   * the AWS SDK, which core does not carry; the worker adds it (see {@code S3CreateIfAbsent}).
   */
  static CreateIfAbsent forFileIO(FileIO io) {
    return LocalCreateIfAbsent.forFileIO(io);
  }

  /** This for the locations it supports, else {@code other}. */
  default CreateIfAbsent orElse(CreateIfAbsent other) {
    CreateIfAbsent first = this;
    return new CreateIfAbsent() {
      @Override
      public boolean supports(String location) {
        return first.supports(location) || other.supports(location);
      }

      @Override
      public boolean createIfAbsent(String location, byte[] bytes) {
        return first.supports(location)
            ? first.createIfAbsent(location, bytes)
            : other.createIfAbsent(location, bytes);
      }
    };
  }
}
